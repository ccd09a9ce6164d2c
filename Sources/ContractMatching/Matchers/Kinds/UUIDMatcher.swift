import Foundation

/// `{ match: uuid }`: a UUID string.
public struct UUIDMatcher: MatcherKind {
    public init() {}

    public static let names = ["uuid"]
    public static func read(_ name: String, from arguments: inout some MatcherArguments) -> Self? { Self() }

    /// `format: uuid`.
    public static func recognizing(schema: [String: JSONValue]) -> Self? { schema["format"] == "uuid" ? Self() : nil }

    public static func recognizing(recorded text: String) -> Self? {
        text.count == 36 && UUID(uuidString: text) != nil ? Self() : nil
    }

    public func mismatches(in actual: JSONValue, at path: String, strict: Bool) -> [Mismatch] {
        guard case .string(let text) = actual else { return check(false, actual, at: path) }
        return check(UUID(uuidString: text) != nil, actual, at: path)
    }

    public var summary: String { "a UUID string" }
    public var jsonType: String? { "string" }

    public func sample(at path: String, example: JSONValue?, with context: SampleContext) throws -> JSONValue {
        example ?? .string(UUID().uuidString.lowercased())
    }

    public func jsonSchema(child: (Matcher) -> [String: JSONValue]) -> [String: JSONValue] { ["type": "string", "format": "uuid"] }

    public func pact(_ pact: inout some PactRendering, at path: String, example: JSONValue?) -> JSONValue? {
        pact.addRules([PactMatchingRule.regex("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")], at: path)
        return example ?? .string("3f2504e0-4f89-41d3-9a0c-0305e82c3301")
    }
}

extension Matcher.Kind {
    /// A UUID string (``UUIDMatcher``).
    public static var uuid: Self { .typed(UUIDMatcher()) }
}
