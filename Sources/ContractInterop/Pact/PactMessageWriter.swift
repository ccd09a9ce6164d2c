import ContractKit
import Foundation
import JOSE
import WebForms

/// Writes the matchers of one request or response as Pact v3 does: an example value, the
/// matching rules by place (`$.a.b` in the body, a header's or query parameter's name), the
/// provider-state generators that put saved values into a request, and notes on what Pact
/// cannot check.
///
/// Pact's `type` rule cascades to everything below it, so literals inside an `each` get an
/// `equality` rule of their own; its `regex` rule is not anchored, so every pattern is.
struct PactMessageWriter: PactRendering {
    /// A request (saved values become generators) or a response (they become their shape).
    enum Side { case request, response }

    let side: Side
    /// The matcher each saved variable was saved from (``Contract/savedMatchers``).
    let saved: [String: Matcher]
    /// Body rules by path, in the order written.
    private(set) var bodyRules: [(path: String, rules: [JSONValue])] = []
    /// Body generators by path.
    private(set) var bodyGenerators: [(path: String, generator: JSONValue)] = []
    private(set) var notes: [String] = []
    /// Whether a cascading `type` rule above reaches the value being rendered.
    private(set) var cascaded = false

    init(side: Side, saved: [String: Matcher]) {
        self.side = side
        self.saved = saved
    }

    /// Fills the body's value at `path` (a form field's `$.NAME`) with `generator`.
    mutating func addBodyGenerator(_ generator: JSONValue, at path: String) {
        bodyGenerators.append((path, generator))
    }

    mutating func note(_ message: String) {
        if !notes.contains(message) { notes.append(message) }
    }

    // MARK: - Bodies

    /// The example of a JSON body, collecting its rules and generators; nil when the body is
    /// only `any` (nothing Pact can state).
    mutating func body(_ matcher: Matcher) -> JSONValue? {
        value(matcher, at: "$", cascaded: false)
    }

    mutating func value(_ matcher: Matcher, at path: String, cascaded: Bool) -> JSONValue? {
        let outer = self.cascaded
        self.cascaded = cascaded
        defer { self.cascaded = outer }
        switch matcher.kind {
        case .literal(.string(let text)) where Template.mayHavePlaceholders(text) && !Template(text).variables.isEmpty:
            let placed = templated(Template(text), at: path)
            if let generator = placed.generator { bodyGenerators.append((path, generator)) }
            addRules(placed.rules, at: path)
            return placed.example
        case .literal(let literal):
            if cascaded { bodyRules.append((path, [PactMatchingRule.named("equality")])) }
            return literal
        case .object(let members):
            var object: [String: JSONValue] = [:]
            for key in members.keys.sorted() {
                guard let member = members[key] else { continue }
                let childPath = PactMatchingRule.path(path, key: key)
                if member.optional {
                    note("\(childPath) is optional: Pact has no optional keys, so the verifier expects it present")
                }
                if let example = value(member, at: childPath, cascaded: cascaded) {
                    object[key] = example
                } else {
                    note("\(childPath) may hold any value: Pact has no rule for that, so it is left out and its presence is not checked")
                }
            }
            return .object(object)
        case .array(let elements):
            return .array(
                elements.enumerated().map { index, element in
                    value(element, at: "\(path)[\(index)]", cascaded: cascaded) ?? .null
                })
        case .typed(let kind):
            return kind.pact(&self, at: path, example: matcher.pactUsableExample)
        }
    }

    mutating func addRules(_ rules: [JSONValue], at path: String) {
        if !rules.isEmpty {
            bodyRules.append((path, rules))
        } else if cascaded {
            bodyRules.append((path, [PactMatchingRule.named("equality")]))
        }
    }

    // MARK: - Text places (headers, query parameters, path parameters, text bodies)

    /// A header's, query parameter's or text body's example text, rules and generator.
    mutating func text(_ matcher: Matcher, at place: String) -> (example: String, rules: [JSONValue], generator: JSONValue?) {
        switch matcher.kind {
        case .literal(.string(let text)) where Template.mayHavePlaceholders(text) && !Template(text).variables.isEmpty:
            let placed = templated(Template(text), at: place)
            return (placed.example.text, placed.rules, placed.generator)
        case .literal(let literal):
            return (literal.text, [], nil)
        case .object, .array:
            return (matcher.pactExample.text, [], nil)
        case .typed(let kind):
            var rendering = TextRendering(place: place)
            let example = kind.pact(&rendering, at: place, example: matcher.pactUsableExample)
            for message in rendering.notes { note(message) }
            guard let example else {
                note("\(place) may be any value: Pact checks its presence only")
                return ("", [PactMatchingRule.named("type")], nil)
            }
            return (example.text, rendering.rules, nil)
        }
    }

    /// The rules a kind gives the one place of a text value, and its notes.
    private struct TextRendering: PactRendering {
        let place: String
        var rules: [JSONValue] = []
        var notes: [String] = []
        var cascaded: Bool { false }

        mutating func addRules(_ rules: [JSONValue], at path: String) {
            if path == place { self.rules += rules }
        }

        mutating func note(_ message: String) { notes.append(message) }

        mutating func value(_ matcher: Matcher, at path: String, cascaded: Bool) -> JSONValue? {
            guard case .typed(let kind) = matcher.kind else { return matcher.pactExample }
            return kind.pact(&self, at: path, example: matcher.pactUsableExample)
        }
    }

    /// The rules of `matcher` for a value at `place` (none for a literal), its notes noted.
    private mutating func rules(of matcher: Matcher, at place: String) -> [JSONValue] {
        guard case .typed(let kind) = matcher.kind else { return [] }
        var rendering = TextRendering(place: place)
        _ = kind.pact(&rendering, at: place, example: nil)
        for message in rendering.notes { note(message) }
        return rendering.rules
    }

    // MARK: - Saved values

    /// A string holding `{{var}}`: in a request, a provider-state generator (`${var}`) whose
    /// value the state-change URL returns; in a response, the shape of what was saved.
    private mutating func templated(_ template: Template, at place: String) -> (
        example: JSONValue, rules: [JSONValue], generator: JSONValue?
    ) {
        let names = template.variables
        let example: JSONValue =
            if let sole = template.soleVariable, let value = samples(template)[sole] { value } else { .string(exampleText(template)) }
        switch side {
        case .request:
            return (example, [], ["type": "ProviderState", "expression": .string(Self.expression(template))])
        case .response:
            let list = names.map { "{{\($0)}}" }.joined(separator: ", ")
            if let sole = template.soleVariable, let matcher = saved[sole] {
                note("\(place) must equal the value saved as \(list): Pact checks its shape only")
                let rules = rules(of: matcher, at: place)
                if rules.isEmpty, case .literal = matcher.kind { return (example, [], nil) }
                return (example, rules.isEmpty ? [PactMatchingRule.named("type")] : rules, nil)
            }
            note("\(place) holds the value saved as \(list): Pact checks the text around it only")
            return (example, [PactMatchingRule.regex(Self.pattern(template, variables: "[\\s\\S]+"))], nil)
        }
    }

    /// The example of each `{{var}}` of `template`: the example of the matcher it was saved
    /// from, else its name.
    func samples(_ template: Template) -> [String: JSONValue] {
        var samples: [String: JSONValue] = [:]
        for name in template.variables { samples[name] = saved[name]?.pactExample ?? .string(name) }
        return samples
    }

    /// `template` with its `{{var}}`s replaced by their ``samples(_:)``.
    func exampleText(_ template: Template) -> String {
        (try? template.render(samples(template))) ?? template.text
    }

    /// `template` with each `{{var}}` written `${var}`: a provider-state generator's expression.
    static func expression(_ template: Template) -> String {
        var expressions: [String: JSONValue] = [:]
        for name in template.variables { expressions[name] = .string("${\(name)}") }
        return (try? template.render(expressions)) ?? template.text
    }

    // MARK: - Rule and path syntax

    /// `{"combine": "AND", "matchers": [...]}`, as v3 lists the rules of a place.
    static func ruleList(_ rules: [JSONValue]) -> JSONValue { ["combine": "AND", "matchers": .array(rules)] }

    /// A pattern of `template`: its text escaped, each `{{var}}` replaced by `variables`.
    static func pattern(_ template: Template, variables: String) -> String {
        var marked: [String: JSONValue] = [:]
        for name in template.variables { marked[name] = .string("\u{1}") }
        let pieces = ((try? template.render(marked)) ?? template.text).components(separatedBy: "\u{1}")
        return pieces.map(escaped).joined(separator: variables)
    }

    /// `text` with the characters regular expressions give a meaning escaped.
    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            if "\\.^$|?*+()[]{}".contains(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }
}
