/// The kinds of typed matcher: the one list of their names.
public enum MatcherKinds {
    /// Every kind, in the order errors list their names.
    public static let all: [any MatcherKind.Type] = [
        StringMatcher.self, IntegerMatcher.self, NumberMatcher.self, BooleanMatcher.self, NullMatcher.self, AnyMatcher.self,
        RegexMatcher.self, UUIDMatcher.self, DateTimeMatcher.self, JWTMatcher.self, JWKSMatcher.self, EachMatcher.self,
        OneOfMatcher.self, TOTPSpec.self, WebAuthnSpec.self, BasicAuthMatcher.self, PKCEMatcher.self,
        AtHashMatcher.self, FormPostMatcher.self,
    ]

    /// Each name accepted after `match:`, in order.
    public static let names: [String] = all.flatMap { $0.names }

    /// The kind that reads `name`.
    public static func named(_ name: String) -> (any MatcherKind.Type)? {
        all.first { $0.names.contains(name) }
    }

    /// The kind a JSON Schema's keywords name (``MatcherKind/recognizing(schema:)``).
    public static func recognizing(schema: [String: JSONValue]) -> Matcher.Kind? {
        for kind in all {
            if let found = kind.recognizing(schema: schema) { return .typed(found) }
        }
        return nil
    }

    /// The kind a recorded string looks made by (``MatcherKind/recognizing(recorded:)``).
    public static func recognizing(recorded text: String) -> Matcher.Kind? {
        for kind in all {
            if let found = kind.recognizing(recorded: text) { return .typed(found) }
        }
        return nil
    }
}
