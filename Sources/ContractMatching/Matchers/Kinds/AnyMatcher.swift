/// `{ match: any }`: any value at all (a key's presence, when the key is not optional).
public struct AnyMatcher: MatcherKind {
    public init() {}

    public static let names = ["any"]
    public static func read(_ name: String, from arguments: inout some MatcherArguments) -> Self? { Self() }

    public func mismatches(in actual: JSONValue, at path: String, strict: Bool) -> [Mismatch] { [] }

    public var summary: String { "any value" }
    public var jsonType: String? { nil }
    public var specificity: Int { 1 }

    public func sample(at path: String, example: JSONValue?, with context: SampleContext) throws -> JSONValue { example ?? .string("any") }
    public func jsonSchema(child: (Matcher) -> [String: JSONValue]) -> [String: JSONValue] { [:] }

    /// Pact has no rule for any value.
    public func pact(_ pact: inout some PactRendering, at path: String, example: JSONValue?) -> JSONValue? { nil }

    /// Every other matcher is narrower.
    public func breadth(becoming new: Matcher.Kind, compare: (Matcher, Matcher) -> MatcherBreadth) -> MatcherBreadth? {
        new.as(Self.self) != nil ? .same : .narrower
    }
}

extension Matcher.Kind {
    /// Any value (``AnyMatcher``).
    public static var any: Self { .typed(AnyMatcher()) }
}
