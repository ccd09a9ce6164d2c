import Foundation

/// `{ match: regex, pattern: "[0-9]+", example: "42" }`: a string the whole pattern matches.
/// A pattern generates no value, so the stub and the verifier need the `example`.
public struct RegexMatcher: MatcherKind {
    /// The pattern, in Swift's regular expression syntax.
    public var pattern: String

    public init(_ pattern: String) {
        self.pattern = pattern
    }

    public static let names = ["regex"]
    public static func parameters(of name: String) -> [String] { ["pattern"] }

    public static func read(_ name: String, from arguments: inout some MatcherArguments) -> Self? {
        guard arguments.has("pattern") else {
            arguments.error(at: nil, "matcher 'regex' needs 'pattern'")
            return nil
        }
        guard let pattern = arguments.string("pattern") else { return nil }
        do {
            _ = try Regex(pattern)
        } catch {
            arguments.error(at: "pattern", "invalid regular expression '\(pattern)': \(error)")
            return nil
        }
        return Self(pattern)
    }

    public var arguments: [(key: String, value: MatcherArgument)] { [("pattern", .value(.string(pattern)))] }

    public func mismatches(in actual: JSONValue, at path: String, strict: Bool) -> [Mismatch] {
        guard case .string(let text) = actual, let regex = try? Regex(pattern) else { return check(false, actual, at: path) }
        return check((try? regex.wholeMatch(in: text)) != nil, actual, at: path)
    }

    public var summary: String { "a string matching /\(pattern)/" }
    public var jsonType: String? { "string" }

    public func sample(at path: String, example: JSONValue?, with context: SampleContext) throws -> JSONValue {
        guard let example else { throw MatcherSampleError(path: path, reason: "a regex matcher (/\(pattern)/) needs an example") }
        return example
    }

    /// JSON Schema patterns (ECMA-262) are not anchored, and have no inline flags such as
    /// (?s): a pattern with them is kept as a description.
    public func jsonSchema(child: (Matcher) -> [String: JSONValue]) -> [String: JSONValue] {
        var schema: [String: JSONValue] = ["type": "string"]
        if pattern.range(of: #"\(\?[a-zA-Z-]+\)"#, options: .regularExpression) != nil {
            schema["description"] = .string("Matches the regular expression \(pattern).")
        } else {
            schema["pattern"] = .string("^(?:\(pattern))$")
        }
        return schema
    }

    public func pact(_ pact: inout some PactRendering, at path: String, example: JSONValue?) -> JSONValue? {
        if pattern.range(of: #"\(\?[a-zA-Z]*m[a-zA-Z]*\)"#, options: .regularExpression) != nil {
            pact.note("\(path): the inline flag (?m) means another thing in the regular expressions of Pact's verifier")
        }
        pact.addRules([PactMatchingRule.regex(PactMatchingRule.dotMatchesAll(pattern))], at: path)
        return example ?? .string("")
    }
}

extension Matcher.Kind {
    /// A string the whole `pattern` matches (``RegexMatcher``).
    public static func regex(_ pattern: String) -> Self { .typed(RegexMatcher(pattern)) }
}
