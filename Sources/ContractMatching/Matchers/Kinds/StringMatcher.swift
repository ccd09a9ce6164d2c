import Foundation
import JOSE

/// `{ match: string, min_length: 1, max_length: 64 }`: a string of that many characters.
public struct StringMatcher: MatcherKind {
    public var minLength: Int?
    public var maxLength: Int?

    public init(minLength: Int?, maxLength: Int?) {
        self.minLength = minLength
        self.maxLength = maxLength
    }

    public static let names = ["string"]
    public static func parameters(of name: String) -> [String] { ["min_length", "max_length"] }

    public static func read(_ name: String, from arguments: inout some MatcherArguments) -> Self? {
        Self(minLength: arguments.integer("min_length"), maxLength: arguments.integer("max_length"))
    }

    public var arguments: [(key: String, value: MatcherArgument)] {
        Bounds.arguments([("min_length", minLength.map(JSONValue.integer)), ("max_length", maxLength.map(JSONValue.integer))])
    }

    public func mismatches(in actual: JSONValue, at path: String, strict: Bool) -> [Mismatch] {
        let expected: String? =
            if case .string(let text) = actual {
                if let minLength, text.count < minLength {
                    "a string of at least \(minLength) characters"
                } else if let maxLength, text.count > maxLength {
                    "a string of at most \(maxLength) characters"
                } else {
                    nil
                }
            } else {
                "a string"
            }
        return expected.map { [Mismatch(path: path, expected: $0, actual: Mismatch.describe(actual))] } ?? []
    }

    private var unbounded: Bool { minLength == nil && maxLength == nil }
    public var summary: String { "a string" + Bounds.text(minLength.map(Double.init), maxLength.map(Double.init), unit: " characters") }
    public var jsonType: String? { "string" }
    public var specificity: Int { unbounded ? 2 : 3 }

    public func sample(at path: String, example: JSONValue?, with context: SampleContext) throws -> JSONValue {
        if let example { return example }
        let length = Swift.min(Swift.max(minLength ?? 0, 24), maxLength ?? Int.max)
        return .string(SecureRandom.base64URLText(length: length))
    }

    public func jsonSchema(child: (Matcher) -> [String: JSONValue]) -> [String: JSONValue] {
        var schema: [String: JSONValue] = ["type": "string"]
        schema["minLength"] = minLength.map(JSONValue.integer)
        schema["maxLength"] = maxLength.map(JSONValue.integer)
        return schema
    }

    public func pact(_ pact: inout some PactRendering, at path: String, example: JSONValue?) -> JSONValue? {
        if unbounded {
            pact.addRules([PactMatchingRule.named("type")], at: path)
        } else {
            let bounds = minLength == maxLength ? "\(minLength ?? 0)" : "\(minLength ?? 0),\(maxLength.map(String.init) ?? "")"
            pact.addRules([PactMatchingRule.regex("[\\s\\S]{\(bounds)}")], at: path)
        }
        return example ?? .string(String(repeating: "x", count: Swift.min(Swift.max(minLength ?? 1, 1), maxLength ?? Int.max)))
    }

    /// Lengths by inclusion; an unbounded string holds every kind of string (`uuid`, `regex`, …).
    public func breadth(becoming new: Matcher.Kind, compare: (Matcher, Matcher) -> MatcherBreadth) -> MatcherBreadth? {
        if let other = new.as(Self.self) { return .counts(old: (minLength, maxLength), new: (other.minLength, other.maxLength)) }
        if unbounded, case .typed(let kind) = new, kind.jsonType == "string" { return .narrower }
        return nil
    }
}

extension Matcher.Kind {
    /// A string of `minLength...maxLength` characters (``StringMatcher``).
    public static func string(minLength: Int?, maxLength: Int?) -> Self {
        .typed(StringMatcher(minLength: minLength, maxLength: maxLength))
    }
}
