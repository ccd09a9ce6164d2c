/// `{ match: one_of, of: [...] }`: a value that matches any of several matchers. The stub and
/// the verifier use the first (or the `example`), and `contract verify` reports an
/// alternative the provider never answered with.
public struct OneOfMatcher: MatcherKind {
    /// The alternatives, in the order written.
    public var choices: [Matcher]

    public init(_ choices: [Matcher]) {
        self.choices = choices
    }

    public static let names = ["one_of"]
    public static func parameters(of name: String) -> [String] { ["of"] }

    public static func read(_ name: String, from arguments: inout some MatcherArguments) -> Self? {
        let choices = arguments.matchers("of", as: "an alternative of one_of")
        guard let choices, !choices.isEmpty else {
            if choices != nil || !arguments.has("of") {
                arguments.error(at: choices == nil ? nil : "of", "matcher 'one_of' needs 'of': a list of the matchers a value may match")
            }
            return nil
        }
        return Self(choices)
    }

    public var arguments: [(key: String, value: MatcherArgument)] { [("of", .matchers(choices))] }
    public var alternatives: [Matcher]? { choices }
    public var children: [Matcher] { choices }
    public func mapChildren(_ transform: (Matcher) -> Matcher) -> Self { Self(choices.map(transform)) }

    public func mismatches(in actual: JSONValue, at path: String, strict: Bool) -> [Mismatch] {
        var closest: [Mismatch]?
        for choice in choices {
            let found = choice.mismatches(in: actual, at: path, strict: strict)
            if found.isEmpty { return [] }
            // Of one JSON type with the value: its own mismatches say more than the list.
            if choice.jsonType == actual.typeName { closest = closest == nil ? found : [] }
        }
        if let closest, !closest.isEmpty { return closest }
        return check(false, actual, at: path)
    }

    public var summary: String { "one of: " + choices.map(\.summary).joined(separator: " | ") }
    public var jsonType: String? { nil }
    /// As narrow as its widest alternative.
    public var specificity: Int { choices.map(\.specificity).min() ?? 1 }
    public var appliesToText: Bool { choices.allSatisfy(\.appliesToText) }

    public func sample(at path: String, example: JSONValue?, with context: SampleContext) throws -> JSONValue {
        if let example { return example }
        guard let first = choices.first else { throw MatcherSampleError(path: path, reason: "a one_of matcher needs alternatives") }
        return try context.sample(first, at: path)
    }

    /// anyOf, not oneOf: alternatives may overlap (a string and a uuid), and a value matching
    /// two of them is still what the contract allows.
    public func jsonSchema(child: (Matcher) -> [String: JSONValue]) -> [String: JSONValue] {
        ["anyOf": .array(choices.map { .object(child($0)) })]
    }

    public func pact(_ pact: inout some PactRendering, at path: String, example: JSONValue?) -> JSONValue? {
        pact.note("\(path) is \(summary): Pact has no rule for alternatives, so it checks the first only")
        guard let first = choices.first else { return nil }
        let rendered = pact.value(first, at: path, cascaded: pact.cascaded)
        if let example, first.mismatches(in: example).isEmpty { return example }
        return rendered
    }

    /// By the alternatives (a matcher that is not a choice is one of itself): narrower when
    /// each new alternative is within an old one, wider when each old one is within a new one.
    public func breadth(becoming new: Matcher.Kind, compare: (Matcher, Matcher) -> MatcherBreadth) -> MatcherBreadth? {
        let after = new.as(Self.self)?.choices ?? [Matcher(new)]
        func within(_ inner: [Matcher], _ outer: [Matcher]) -> Bool {
            inner.allSatisfy { candidate in outer.contains { [.same, .narrower].contains(compare($0, candidate)) } }
        }
        switch (within(after, choices), within(choices, after)) {
        case (true, true): return .same
        case (true, false): return .narrower
        case (false, true): return .wider
        case (false, false): return .different
        }
    }
}

extension Matcher.Kind {
    /// A value that matches any of `alternatives` (``OneOfMatcher``).
    public static func oneOf(_ alternatives: [Matcher]) -> Self { .typed(OneOfMatcher(alternatives)) }
}
