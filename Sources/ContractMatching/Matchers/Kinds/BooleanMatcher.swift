/// `{ match: boolean }`: `true` or `false`.
public struct BooleanMatcher: MatcherKind {
    public init() {}

    public static let names = ["boolean"]
    public static func read(_ name: String, from arguments: inout some MatcherArguments) -> Self? { Self() }

    public func mismatches(in actual: JSONValue, at path: String, strict: Bool) -> [Mismatch] {
        if case .bool = actual { return [] }
        return check(false, actual, at: path)
    }

    public var summary: String { "a boolean" }
    public var jsonType: String? { "boolean" }
    public var readsTextAsJSON: Bool { true }

    public func sample(at path: String, example: JSONValue?, with context: SampleContext) throws -> JSONValue { example ?? .bool(true) }
    public func jsonSchema(child: (Matcher) -> [String: JSONValue]) -> [String: JSONValue] { ["type": "boolean"] }

    public func pact(_ pact: inout some PactRendering, at path: String, example: JSONValue?) -> JSONValue? {
        pact.addRules([PactMatchingRule.named("type")], at: path)
        return example ?? .bool(true)
    }
}

extension Matcher.Kind {
    /// `true` or `false` (``BooleanMatcher``).
    public static var boolean: Self { .typed(BooleanMatcher()) }
}
