/// `{ match: each, of: …, min: 1 }`: an array whose every element matches `of`, with a count
/// in `min...max`.
public struct EachMatcher: MatcherKind {
    /// What every element matches.
    public var element: Matcher
    public var min: Int?
    public var max: Int?

    public init(of element: Matcher, min: Int?, max: Int?) {
        self.element = element
        self.min = min
        self.max = max
    }

    public static let names = ["each"]
    public static func parameters(of name: String) -> [String] { ["of", "min", "max"] }

    public static func read(_ name: String, from arguments: inout some MatcherArguments) -> Self? {
        guard arguments.require("of", of: name, "the matcher for every element") else { return nil }
        guard let element = arguments.matcher("of", as: "'of'", member: false, text: false) else { return nil }
        return Self(of: element, min: arguments.integer("min"), max: arguments.integer("max"))
    }

    public var arguments: [(key: String, value: MatcherArgument)] {
        [("of", .matcher(element))] + Bounds.arguments([("min", min.map(JSONValue.integer)), ("max", max.map(JSONValue.integer))])
    }

    public var children: [Matcher] { [element] }
    public func mapChildren(_ transform: (Matcher) -> Matcher) -> Self { Self(of: transform(element), min: min, max: max) }
    public func matcher(forIndex index: Int) -> Matcher? { element }

    public func mismatches(in actual: JSONValue, at path: String, strict: Bool) -> [Mismatch] {
        func fail(_ expected: String) -> [Mismatch] { [Mismatch(path: path, expected: expected, actual: Mismatch.describe(actual))] }
        guard case .array(let array) = actual else { return fail("an array") }
        if let min, array.count < min { return fail("an array of at least \(min) elements") }
        if let max, array.count > max { return fail("an array of at most \(max) elements") }
        return array.enumerated().flatMap { index, value in element.mismatches(in: value, at: "\(path)[\(index)]", strict: strict) }
    }

    public var summary: String { "an array of \(element.summary)" }
    public var jsonType: String? { "array" }
    public var specificity: Int { 2 }

    public func sample(at path: String, example: JSONValue?, with context: SampleContext) throws -> JSONValue {
        if let example { return example }
        return .array(try (0..<Swift.max(min ?? 1, 1)).map { try context.sample(element, at: "\(path)[\($0)]") })
    }

    public func jsonSchema(child: (Matcher) -> [String: JSONValue]) -> [String: JSONValue] {
        var schema: [String: JSONValue] = ["type": "array", "items": .object(child(element))]
        schema["minItems"] = min.map(JSONValue.integer)
        schema["maxItems"] = max.map(JSONValue.integer)
        return schema
    }

    /// Pact's `type` with bounds, which cascades to the elements.
    public func pact(_ pact: inout some PactRendering, at path: String, example: JSONValue?) -> JSONValue? {
        pact.addRules([PactMatchingRule.array(min: min, max: max)], at: path)
        let sample = pact.value(element, at: "\(path)[*]", cascaded: true) ?? .null
        return example ?? .array(Array(repeating: sample, count: Swift.max(min ?? 1, 1)))
    }

    /// By the count bounds and the element, both the same way.
    public func breadth(becoming new: Matcher.Kind, compare: (Matcher, Matcher) -> MatcherBreadth) -> MatcherBreadth? {
        guard let other = new.as(Self.self) else { return nil }
        return MatcherBreadth.counts(old: (min, max), new: (other.min, other.max)).combined(with: compare(element, other.element))
    }
}

extension Matcher.Kind {
    /// An array whose every element matches `of`, with a count in `min...max` (``EachMatcher``).
    public static func each(of element: Matcher, min: Int?, max: Int?) -> Self { .typed(EachMatcher(of: element, min: min, max: max)) }
}
