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
struct PactMessageWriter {
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

    private mutating func value(_ matcher: Matcher, at path: String, cascaded: Bool) -> JSONValue? {
        switch matcher.kind {
        case .literal(.string(let text)) where Template.mayHavePlaceholders(text) && !Template(text).variables.isEmpty:
            let placed = templated(Template(text), at: path)
            if let generator = placed.generator { bodyGenerators.append((path, generator)) }
            addRules(placed.rules, at: path, cascaded: cascaded)
            return placed.example
        case .literal(let literal):
            if cascaded { bodyRules.append((path, [Self.rule("equality")])) }
            return literal
        case .object(let members):
            var object: [String: JSONValue] = [:]
            for key in members.keys.sorted() {
                guard let member = members[key] else { continue }
                let childPath = Self.path(path, key: key)
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
        case .each(let element, let min, let max):
            bodyRules.append((path, [Self.arrayRule(min: min, max: max)]))
            let sample = value(element, at: "\(path)[*]", cascaded: true) ?? .null
            if let example = matcher.example { return example }
            return .array(Array(repeating: sample, count: Swift.max(min ?? 1, 1)))
        case .jwks(let min, let max):
            let keys = Self.path(path, key: "keys")
            bodyRules.append((keys, [Self.arrayRule(min: min, max: max)]))
            bodyRules.append((Self.path("\(keys)[*]", key: "kty"), [Self.rule("type")]))
            bodyRules.append((Self.path("\(keys)[*]", key: "kid"), [Self.rule("type")]))
            note("\(path) is a JSON Web Key Set: Pact checks that its keys have a kty and a kid, not that they are Ed25519 keys")
            return matcher.example ?? Self.sampleJWKS(count: Swift.max(min ?? 1, 1))
        case .webauthn(let credential):
            // Pact's `type` cascades: every member must be of the example's type.
            bodyRules.append((path, [Self.rule("type")]))
            note(
                "\(path) is \(credential.summary): Pact cannot sign one, so the verifier sends an example of its shape, which a provider refuses (contract verify signs a fresh one)"
            )
            return credential.exampleCredential
        case .oneOf(let alternatives):
            note("\(path) is \(matcher.summary): Pact has no rule for alternatives, so it checks the first only")
            guard let first = alternatives.first else { return nil }
            if let example = matcher.example, first.mismatches(in: example).isEmpty {
                _ = value(first, at: path, cascaded: cascaded)
                return example
            }
            return value(first, at: path, cascaded: cascaded)
        case .any:
            return nil
        default:
            addRules(scalarRules(matcher.kind, at: path), at: path, cascaded: cascaded)
            return Self.example(of: matcher)
        }
    }

    private mutating func addRules(_ rules: [JSONValue], at path: String, cascaded: Bool) {
        if !rules.isEmpty {
            bodyRules.append((path, rules))
        } else if cascaded {
            bodyRules.append((path, [Self.rule("equality")]))
        }
    }

    // MARK: - Text places (headers, query parameters, path parameters, text bodies)

    /// A header's, query parameter's or text body's example text, rules and generator.
    mutating func text(_ matcher: Matcher, at place: String) -> (example: String, rules: [JSONValue], generator: JSONValue?) {
        switch matcher.kind {
        case .literal(.string(let text)) where Template.mayHavePlaceholders(text) && !Template(text).variables.isEmpty:
            let placed = templated(Template(text), at: place)
            return (Self.text(of: placed.example), placed.rules, placed.generator)
        case .literal(let literal):
            return (Self.text(of: literal), [], nil)
        case .any:
            note("\(place) may be any value: Pact checks its presence only")
            return ("", [Self.rule("type")], nil)
        default:
            return (Self.text(of: Self.example(of: matcher)), scalarRules(matcher.kind, at: place), nil)
        }
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
                let rules = scalarRules(matcher.kind, at: place)
                if rules.isEmpty, case .literal = matcher.kind { return (example, [], nil) }
                return (example, rules.isEmpty ? [Self.rule("type")] : rules, nil)
            }
            note("\(place) holds the value saved as \(list): Pact checks the text around it only")
            return (example, [Self.regex(Self.pattern(template, variables: "[\\s\\S]+"))], nil)
        }
    }

    /// The example of each `{{var}}` of `template`: the example of the matcher it was saved
    /// from, else its name.
    func samples(_ template: Template) -> [String: JSONValue] {
        var samples: [String: JSONValue] = [:]
        for name in template.variables { samples[name] = saved[name].map(Self.example(of:)) ?? .string(name) }
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

    // MARK: - Scalars

    /// The rules of a scalar matcher, noting what Pact cannot check.
    private mutating func scalarRules(_ kind: Matcher.Kind, at place: String) -> [JSONValue] {
        switch kind {
        case .string(nil, nil):
            return [Self.rule("type")]
        case .string(let minLength, let maxLength):
            let bounds = minLength == maxLength ? "\(minLength ?? 0)" : "\(minLength ?? 0),\(maxLength.map(String.init) ?? "")"
            return [Self.regex("[\\s\\S]{\(bounds)}")]
        case .integer(let min, let max):
            noteBounds(min, max, at: place)
            return [Self.rule("integer")]
        case .number(let min, let max):
            noteBounds(min, max, at: place)
            return [Self.rule("number")]
        case .boolean: return [Self.rule("type")]
        case .null: return [Self.rule("null")]
        case .regex(let pattern):
            if pattern.range(of: #"\(\?[a-zA-Z]*m[a-zA-Z]*\)"#, options: .regularExpression) != nil {
                note("\(place): the inline flag (?m) means another thing in the regular expressions of Pact's verifier")
            }
            return [Self.regex(Self.dotMatchesAll(pattern))]
        case .uuid: return [Self.regex(Self.uuidPattern)]
        case .datetime: return [Self.regex(Self.dateTimePattern)]
        case .jwt(let claims):
            if !claims.isEmpty {
                note(
                    "\(place) is a JWT whose claims \(claims.keys.sorted().joined(separator: ", ")) the contract checks: Pact checks its shape only"
                )
            }
            return [Self.regex(String(JWTShape.pattern.dropFirst().dropLast()))]
        case .totp(let code):
            note(
                "\(place) is a TOTP code of \(code.secret): Pact cannot compute one, so the verifier sends the example \(code.placeholderCode), which a provider refuses (contract verify sends a valid code)"
            )
            return [Self.regex(code.pattern)]
        case .basicAuth:
            note("\(place) is HTTP Basic credentials: Pact checks the scheme and the base64 only, not the username and password")
            return [Self.regex("Basic [A-Za-z0-9+/=]+")]
        case .any, .literal, .object, .array, .each, .jwks, .webauthn, .oneOf:
            return []
        }
    }

    private mutating func noteBounds(_ min: Double?, _ max: Double?, at place: String) {
        let bounds = [min.map { "minimum \(JSONValue.numeric($0))" }, max.map { "maximum \(JSONValue.numeric($0))" }].compactMap { $0 }
        guard !bounds.isEmpty else { return }
        note(
            "\(place): Pact has no numeric bounds, so the \(bounds.joined(separator: " and ")) \(bounds.count == 1 ? "is" : "are") not checked"
        )
    }

    // MARK: - Examples

    /// The example Pact shows for a matcher: literals as written, typed matchers their
    /// `example`, else a fixed value that satisfies them (the file is the same on every run).
    static func example(of matcher: Matcher) -> JSONValue {
        if let example = matcher.example, !example.description.contains("{{") { return example }
        switch matcher.kind {
        case .literal(let value): return value
        case .object(let members): return .object(members.mapValues(example(of:)))
        case .array(let elements): return .array(elements.map(example(of:)))
        case .string(let minLength, let maxLength):
            return .string(String(repeating: "x", count: Swift.min(Swift.max(minLength ?? 1, 1), maxLength ?? Int.max)))
        case .integer(let min, let max): return .integer(Int((min ?? Swift.min(1, max ?? 1)).rounded(.up)))
        case .number(let min, let max): return .number(min ?? Swift.min(1, max ?? 1))
        case .boolean: return .bool(true)
        case .null, .any: return .null
        case .regex: return .string("")
        case .uuid: return .string("3f2504e0-4f89-41d3-9a0c-0305e82c3301")
        case .datetime: return .string("2001-02-03T04:05:06Z")
        case .jwt(let claims):
            let payload = Data(JSONValue.object(claims.mapValues(example(of:))).description.utf8)
            return .string(
                CompactJWS.serialize(header: Data(#"{"alg":"EdDSA","typ":"JWT"}"#.utf8), payload: payload) { _ in Data("signature".utf8) })
        case .each(let element, let min, _):
            return .array(Array(repeating: example(of: element), count: Swift.max(min ?? 1, 1)))
        case .jwks(let min, _):
            return sampleJWKS(count: Swift.max(min ?? 1, 1))
        case .totp(let code):
            return .string(code.placeholderCode)
        case .webauthn(let credential):
            return credential.exampleCredential
        case .oneOf(let alternatives):
            return alternatives.first.map(example(of:)) ?? .null
        case .basicAuth(let username, let password):
            return .string(BasicCredentials.header(username: text(of: example(of: username)), password: text(of: example(of: password))))
        }
    }

    static func sampleJWKS(count: Int) -> JSONValue {
        let key: JSONValue = [
            "kty": "OKP", "crv": "Ed25519", "kid": "example", "use": "sig", "alg": "EdDSA", "x": .string(Base64URL.encode(Data(count: 32))),
        ]
        return ["keys": .array(Array(repeating: key, count: count))]
    }

    /// A header's or query parameter's text: strings as they are, other values as JSON.
    static func text(of value: JSONValue) -> String {
        if case .string(let text) = value { text } else { value.description }
    }

    // MARK: - Rule and path syntax

    static let uuidPattern = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
    /// RFC 3339: a date, `T`, a time with optional fractions, and `Z` or an offset.
    static let dateTimePattern = #"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})"#

    static func rule(_ name: String) -> JSONValue { ["match": .string(name)] }

    /// `type` with an array's bounds: each element matches the first example's type.
    static func arrayRule(min: Int?, max: Int?) -> JSONValue {
        var rule: [String: JSONValue] = ["match": "type"]
        rule["min"] = min.map(JSONValue.integer)
        rule["max"] = max.map(JSONValue.integer)
        return .object(rule)
    }

    /// A `regex` rule that the whole value must match. Pact's verifier does not anchor its
    /// patterns, and runs some through Oniguruma, where `^` and `$` are line anchors: `\A` and
    /// `\z` anchor in both of its engines.
    static func regex(_ pattern: String) -> JSONValue { ["match": "regex", "regex": .string("\\A(?:\(pattern))\\z")] }

    /// `pattern` without `(?s)`, each `.` outside a character class written `[\s\S]`:
    /// Oniguruma (in Pact's verifier) knows no `(?s)`.
    static func dotMatchesAll(_ pattern: String) -> String {
        guard pattern.contains("(?s)") else { return pattern }
        var result = ""
        var escaped = false
        var inClass = false
        for character in pattern.replacingOccurrences(of: "(?s)", with: "") {
            if escaped {
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if inClass {
                inClass = character != "]"
            } else if character == "[" {
                inClass = true
            } else if character == "." {
                result += "[\\s\\S]"
                continue
            }
            result.append(character)
        }
        return result
    }

    /// `{"combine": "AND", "matchers": [...]}`, as v3 lists the rules of a place.
    static func ruleList(_ rules: [JSONValue]) -> JSONValue { ["combine": "AND", "matchers": .array(rules)] }

    /// `$.a`, or `$['odd key']` for a key that is not a plain name.
    static func path(_ parent: String, key: String) -> String {
        let plain =
            key.first.map { $0.isLetter || $0 == "_" } == true && key.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        return plain ? "\(parent).\(key)" : "\(parent)['\(key.replacingOccurrences(of: "'", with: "\\'"))']"
    }

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
