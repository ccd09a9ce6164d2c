/// `{ match: null }`: JSON `null`.
public struct NullMatcher: MatcherKind {
    public init() {}

    public static let names = ["null"]
    public static func read(_ name: String, from arguments: inout some MatcherArguments) -> Self? { Self() }

    public func mismatches(in actual: JSONValue, at path: String, strict: Bool) -> [Mismatch] { check(actual == .null, actual, at: path) }

    public var summary: String { "null" }
    public var jsonType: String? { "null" }
    public var specificity: Int { 4 }
    public var readsTextAsJSON: Bool { true }

    public func sample(at path: String, example: JSONValue?, with context: SampleContext) throws -> JSONValue { example ?? .null }
    public func jsonSchema(child: (Matcher) -> [String: JSONValue]) -> [String: JSONValue] { ["type": "null"] }

    public func pact(_ pact: inout some PactRendering, at path: String, example: JSONValue?) -> JSONValue? {
        pact.addRules([PactMatchingRule.named("null")], at: path)
        return example ?? .null
    }
}

extension Matcher.Kind {
    /// JSON `null` (``NullMatcher``).
    public static var null: Self { .typed(NullMatcher()) }
}
