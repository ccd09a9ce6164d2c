/// `{ match: number, min: 0, max: 1 }`: a number (whole or not) in those bounds.
public struct NumberMatcher: MatcherKind {
    public var min: Double?
    public var max: Double?

    public init(min: Double?, max: Double?) {
        self.min = min
        self.max = max
    }

    public static let names = ["number"]
    public static func parameters(of name: String) -> [String] { ["min", "max"] }

    public static func read(_ name: String, from arguments: inout some MatcherArguments) -> Self? {
        Self(min: arguments.number("min"), max: arguments.number("max"))
    }

    public var arguments: [(key: String, value: MatcherArgument)] {
        Bounds.arguments([("min", min.map(JSONValue.numeric)), ("max", max.map(JSONValue.numeric))])
    }

    public func mismatches(in actual: JSONValue, at path: String, strict: Bool) -> [Mismatch] {
        guard let value = actual.doubleValue else { return [Mismatch(path: path, expected: "a number", actual: Mismatch.describe(actual))] }
        return check(Bounds.contain(value, min, max), actual, at: path)
    }

    public var summary: String { "a number" + Bounds.text(min, max) }
    public var jsonType: String? { "number" }
    public var specificity: Int { min == nil && max == nil ? 2 : 3 }
    public var readsTextAsJSON: Bool { true }

    public func sample(at path: String, example: JSONValue?, with context: SampleContext) throws -> JSONValue {
        example ?? .number(min ?? Swift.min(1, max ?? 1))
    }

    public func jsonSchema(child: (Matcher) -> [String: JSONValue]) -> [String: JSONValue] {
        var schema: [String: JSONValue] = ["type": "number"]
        schema["minimum"] = min.map(JSONValue.numeric)
        schema["maximum"] = max.map(JSONValue.numeric)
        return schema
    }

    public func pact(_ pact: inout some PactRendering, at path: String, example: JSONValue?) -> JSONValue? {
        PactMatchingRule.noteBounds(min, max, at: path, in: &pact)
        pact.addRules([PactMatchingRule.named("number")], at: path)
        return example ?? .number(min ?? Swift.min(1, max ?? 1))
    }

    public func breadth(becoming new: Matcher.Kind, compare: (Matcher, Matcher) -> MatcherBreadth) -> MatcherBreadth? {
        new.as(Self.self).map { .bounds(old: (min, max), new: ($0.min, $0.max)) }
    }
}

extension Matcher.Kind {
    /// A number in `min...max` (``NumberMatcher``).
    public static func number(min: Double?, max: Double?) -> Self { .typed(NumberMatcher(min: min, max: max)) }
}
