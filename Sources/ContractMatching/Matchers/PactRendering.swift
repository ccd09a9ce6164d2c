import Foundation

/// Where a kind's Pact v3 rendering goes (``MatcherKind/pact(_:at:example:)``): the rules
/// by path, the notes on what Pact cannot check, and the rendering of the matchers inside it.
public protocol PactRendering {
    /// Whether a cascading `type` rule above reaches the value being rendered.
    var cascaded: Bool { get }
    /// Adds `rules` for the value at `path` (under a cascading `type`, none becomes `equality`).
    mutating func addRules(_ rules: [JSONValue], at path: String)
    /// Notes something Pact does not check.
    mutating func note(_ message: String)
    /// Renders `matcher` at `path`, `cascaded` when a `type` rule above reaches it; its example.
    mutating func value(_ matcher: Matcher, at path: String, cascaded: Bool) -> JSONValue?
}

/// Pact v3 matching rules, as its JSON writes them.
public enum PactMatchingRule {
    /// `{"match": name}`: `type`, `integer`, `number`, `null`, `equality`.
    public static func named(_ name: String) -> JSONValue { ["match": .string(name)] }

    /// A `regex` rule that the whole value must match. Pact's verifier does not anchor its
    /// patterns, and runs some through Oniguruma, where `^` and `$` are line anchors: `\A` and
    /// `\z` anchor in both of its engines.
    public static func regex(_ pattern: String) -> JSONValue { ["match": "regex", "regex": .string("\\A(?:\(pattern))\\z")] }

    /// `type` with an array's bounds: each element matches the first example's type.
    public static func array(min: Int?, max: Int?) -> JSONValue {
        var rule: [String: JSONValue] = ["match": "type"]
        rule["min"] = min.map(JSONValue.integer)
        rule["max"] = max.map(JSONValue.integer)
        return .object(rule)
    }

    /// `$.a`, or `$['odd key']` for a key that is not a plain name.
    public static func path(_ parent: String, key: String) -> String {
        let plain =
            key.first.map { $0.isLetter || $0 == "_" } == true && key.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        return plain ? "\(parent).\(key)" : "\(parent)['\(key.replacingOccurrences(of: "'", with: "\\'"))']"
    }

    /// `pattern` without `(?s)`, each `.` outside a character class written `[\s\S]`:
    /// Oniguruma (in Pact's verifier) knows no `(?s)`.
    public static func dotMatchesAll(_ pattern: String) -> String {
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

    /// Notes the numeric bounds Pact cannot check at `place`.
    public static func noteBounds(_ min: Double?, _ max: Double?, at place: String, in pact: inout some PactRendering) {
        let bounds = [min.map { "minimum \(JSONValue.numeric($0))" }, max.map { "maximum \(JSONValue.numeric($0))" }].compactMap { $0 }
        guard !bounds.isEmpty else { return }
        pact.note(
            "\(place): Pact has no numeric bounds, so the \(bounds.joined(separator: " and ")) \(bounds.count == 1 ? "is" : "are") not checked"
        )
    }
}

extension Matcher {
    /// The example Pact shows for this matcher: literals as written, typed matchers their
    /// `example`, else a fixed value that satisfies them (a Pact file is the same on every run).
    public var pactExample: JSONValue {
        var scratch = PactScratch()
        return scratch.value(self, at: "$", cascaded: false) ?? .null
    }

    /// The `example` written (``sampleExample``: `{{request.base_url}}` a base URL); a text
    /// whose `{{name}}`s the stub fills (a page's form action carrying the request's `state`)
    /// with each name in its place, which Pact cannot fill; nil for another value that holds one.
    public var pactUsableExample: JSONValue? {
        guard let example = sampleExample, example.description.contains("{{") else { return sampleExample }
        guard case .string(let text) = example else { return nil }
        let template = Template(text)
        return try? .string(template.render(Dictionary(template.variables.map { ($0, JSONValue.string($0)) }) { first, _ in first }))
    }
}

/// A rendering that keeps only the examples.
struct PactScratch: PactRendering {
    var cascaded: Bool { false }
    mutating func addRules(_ rules: [JSONValue], at path: String) {}
    mutating func note(_ message: String) {}

    mutating func value(_ matcher: Matcher, at path: String, cascaded: Bool) -> JSONValue? {
        switch matcher.kind {
        case .literal(let value): value
        case .object(let members): .object(members.mapValues { value($0, at: path, cascaded: cascaded) ?? .null })
        case .array(let elements): .array(elements.map { value($0, at: path, cascaded: cascaded) ?? .null })
        case .typed(let kind): kind.pact(&self, at: path, example: matcher.pactUsableExample) ?? matcher.pactUsableExample
        }
    }
}
