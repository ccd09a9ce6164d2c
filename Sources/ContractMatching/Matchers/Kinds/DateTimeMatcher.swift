import Foundation

/// `{ match: datetime }`: an RFC 3339 date-time string.
public struct DateTimeMatcher: MatcherKind {
    public init() {}

    public static let names = ["datetime"]
    public static func read(_ name: String, from arguments: inout some MatcherArguments) -> Self? { Self() }

    /// `format: date-time`.
    public static func recognizing(schema: [String: JSONValue]) -> Self? { schema["format"] == "date-time" ? Self() : nil }

    public static func recognizing(recorded text: String) -> Self? {
        text.count >= 20 && text.count <= 40 && text.first?.isNumber == true && DateTimeFormat.parse(text) != nil ? Self() : nil
    }

    public func mismatches(in actual: JSONValue, at path: String, strict: Bool) -> [Mismatch] {
        guard case .string(let text) = actual else { return check(false, actual, at: path) }
        return check(DateTimeFormat.parse(text) != nil, actual, at: path)
    }

    public var summary: String { "an RFC 3339 date-time string" }
    public var jsonType: String? { "string" }

    public func sample(at path: String, example: JSONValue?, with context: SampleContext) throws -> JSONValue {
        example ?? .string(DateTimeFormat.string(from: Date()))
    }

    public func jsonSchema(child: (Matcher) -> [String: JSONValue]) -> [String: JSONValue] { ["type": "string", "format": "date-time"] }

    /// RFC 3339: a date, `T`, a time with optional fractions, and `Z` or an offset.
    public func pact(_ pact: inout some PactRendering, at path: String, example: JSONValue?) -> JSONValue? {
        pact.addRules([PactMatchingRule.regex(#"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})"#)], at: path)
        return example ?? .string("2001-02-03T04:05:06Z")
    }
}

extension Matcher.Kind {
    /// An RFC 3339 date-time string (``DateTimeMatcher``).
    public static var datetime: Self { .typed(DateTimeMatcher()) }
}
