/// `{ match: integer, min: 1, max: 100 }`: a whole number in those bounds.
public struct IntegerMatcher: MatcherKind {
    public var min: Double?
    public var max: Double?

    public init(min: Double?, max: Double?) {
        self.min = min
        self.max = max
    }

    public static let names = ["integer"]
    public static func parameters(of name: String) -> [String] { ["min", "max"] }

    public static func read(_ name: String, from arguments: inout some MatcherArguments) -> Self? {
        Self(min: arguments.number("min"), max: arguments.number("max"))
    }

    public var arguments: [(key: String, value: MatcherArgument)] {
        Bounds.arguments([("min", min.map(JSONValue.numeric)), ("max", max.map(JSONValue.numeric))])
    }

    public func mismatches(in actual: JSONValue, at path: String, strict: Bool) -> [Mismatch] {
        guard case .integer(let value) = actual else {
            return [Mismatch(path: path, expected: "an integer", actual: Mismatch.describe(actual))]
        }
        return check(Bounds.contain(Double(value), min, max), actual, at: path)
    }

    public var summary: String { "an integer" + Bounds.text(min, max) }
    public var jsonType: String? { "integer" }
    public var readsTextAsJSON: Bool { true }

    public func sample(at path: String, example: JSONValue?, with context: SampleContext) throws -> JSONValue {
        example ?? .integer(Int(min ?? Swift.min(1, max ?? 1)))
    }

    public func jsonSchema(child: (Matcher) -> [String: JSONValue]) -> [String: JSONValue] {
        var schema: [String: JSONValue] = ["type": "integer"]
        schema["minimum"] = min.map(JSONValue.numeric)
        schema["maximum"] = max.map(JSONValue.numeric)
        return schema
    }

    public func pact(_ pact: inout some PactRendering, at path: String, example: JSONValue?) -> JSONValue? {
        PactMatchingRule.noteBounds(min, max, at: path, in: &pact)
        pact.addRules([PactMatchingRule.named("integer")], at: path)
        return example ?? .integer(Int((min ?? Swift.min(1, max ?? 1)).rounded(.up)))
    }

    /// Bounds by inclusion; every integer is a number.
    public func breadth(becoming new: Matcher.Kind, compare: (Matcher, Matcher) -> MatcherBreadth) -> MatcherBreadth? {
        if let other = new.as(Self.self) { return .bounds(old: (min, max), new: (other.min, other.max)) }
        if let other = new.as(NumberMatcher.self) {
            return MatcherBreadth.bounds(old: (min, max), new: (other.min, other.max)).combined(with: .wider)
        }
        return nil
    }
}

extension Matcher.Kind {
    /// A whole number in `min...max` (``IntegerMatcher``).
    public static func integer(min: Double?, max: Double?) -> Self { .typed(IntegerMatcher(min: min, max: max)) }
}
