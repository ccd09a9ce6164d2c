import JOSE

/// `{ match: pkce_s256, … }`: a PKCE value tied to another (RFC 7636 §4.2), in one of two
/// directions.
///
/// - `verifier: V`: the value is the S256 `code_challenge` of the verifier `V` (a literal or a
///   saved `"{{name}}"`), `BASE64URL(SHA256(V))`. In a request the verifier sends that
///   challenge; in a response (a redirect to an upstream provider) it checks one.
/// - `challenge: C`: the value is a `code_verifier` (43 to 128 unreserved characters,
///   §4.1) whose S256 is `C`, usually a challenge saved from an earlier request. This is how
///   the stub, as an app's authorization server, checks the verifier the app sends. `contract
///   verify` sends the `example`.
///
/// ```yaml
/// code_challenge: { match: pkce_s256, verifier: dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk }
/// code_verifier: { match: pkce_s256, challenge: "{{challenge}}", example: dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk }
/// ```
public struct PKCEMatcher: MatcherKind {
    /// The verifier whose challenge the value is; nil in the other direction.
    public var verifier: Matcher?
    /// The challenge the value is a verifier of; nil in the other direction.
    public var challenge: Matcher?

    public init(verifier: Matcher) {
        self.verifier = verifier
        challenge = nil
    }

    public init(challenge: Matcher) {
        self.challenge = challenge
        verifier = nil
    }

    public static let names = ["pkce_s256"]
    public static func parameters(of name: String) -> [String] { ["verifier", "challenge"] }

    public static func read(_ name: String, from arguments: inout some MatcherArguments) -> Self? {
        switch (arguments.has("verifier"), arguments.has("challenge")) {
        case (true, false):
            guard let verifier = arguments.matcher("verifier", as: "the pkce_s256 verifier", member: false, text: true) else { return nil }
            if case .literal(.string(let text)) = verifier.kind, !text.contains("{{"), !PKCE.isVerifier(text) {
                arguments.error(at: "verifier", "a PKCE verifier is 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 §4.1)")
                return nil
            }
            return Self(verifier: verifier)
        case (false, true):
            guard let challenge = arguments.matcher("challenge", as: "the pkce_s256 challenge", member: false, text: true) else {
                return nil
            }
            return Self(challenge: challenge)
        default:
            arguments.error(
                at: nil,
                "matcher 'pkce_s256' needs one of 'verifier' (the value is its S256 challenge) or 'challenge' (the value is a verifier of it)"
            )
            return nil
        }
    }

    public var arguments: [(key: String, value: MatcherArgument)] {
        if let verifier { [("verifier", .matcher(verifier))] } else if let challenge { [("challenge", .matcher(challenge))] } else { [] }
    }
    public var children: [Matcher] { [verifier, challenge].compactMap { $0 } }
    public func mapChildren(_ transform: (Matcher) -> Matcher) -> Self {
        var copy = self
        copy.verifier = verifier.map(transform)
        copy.challenge = challenge.map(transform)
        return copy
    }

    /// The literal text of `matcher` once its placeholders are filled; nil while they are not.
    private static func text(of matcher: Matcher) -> String? {
        guard case .literal(.string(let text)) = matcher.kind, !text.contains("{{") else { return nil }
        return text
    }

    public func mismatches(in actual: JSONValue, at path: String, strict: Bool) -> [Mismatch] {
        guard case .string(let text) = actual else { return check(false, actual, at: path) }
        if let verifier {
            // A verifier still a placeholder matches any challenge's form (a stub before the save).
            guard let known = Self.text(of: verifier) else { return check(PKCE.isChallenge(text), actual, at: path) }
            return check(ConstantTime.equal(Array(text.utf8), Array(PKCE.challenge(of: known).utf8)), actual, at: path)
        }
        guard PKCE.isVerifier(text) else { return check(false, actual, at: path) }
        guard let challenge, let known = Self.text(of: challenge) else { return [] }
        guard ConstantTime.equal(Array(PKCE.challenge(of: text).utf8), Array(known.utf8)) else {
            // The verifier is a secret of the client: its form is said, not its value.
            return [Mismatch(path: path, expected: summary, actual: "a verifier whose S256 is another challenge (not shown)")]
        }
        return []
    }

    public var summary: String {
        if let verifier {
            "the S256 PKCE challenge of \(verifier.summary)"
        } else {
            "a PKCE verifier whose S256 is \(challenge?.summary ?? "the challenge")"
        }
    }
    public var jsonType: String? { "string" }
    /// One value fits a known verifier or challenge: as narrow as a literal.
    public var specificity: Int { 5 }

    public func sample(at path: String, example: JSONValue?, with context: SampleContext) throws -> JSONValue {
        if let verifier {
            return .string(PKCE.challenge(of: try context.sample(verifier, at: "\(path) verifier").text))
        }
        guard let example else {
            throw MatcherSampleError(path: path, reason: "a pkce_s256 with 'challenge' needs an example verifier to send")
        }
        if let challenge, let known = Self.text(of: challenge), PKCE.challenge(of: example.text) != known {
            throw MatcherSampleError(
                path: path, reason: "the example verifier's S256 is not the challenge \(known): send the verifier of the challenge sent")
        }
        return example
    }

    public func jsonSchema(child: (Matcher) -> [String: JSONValue]) -> [String: JSONValue] {
        if verifier != nil {
            return ["type": "string", "pattern": "^[A-Za-z0-9_-]{43}$", "description": "An S256 PKCE code challenge (RFC 7636 §4.2)."]
        }
        return ["type": "string", "pattern": "^[A-Za-z0-9._~-]{43,128}$", "description": "A PKCE code verifier (RFC 7636 §4.1)."]
    }

    public func pact(_ pact: inout some PactRendering, at path: String, example: JSONValue?) -> JSONValue? {
        pact.note("\(path) is a PKCE value tied to another: Pact checks its form only, not the S256 relation")
        if let verifier {
            pact.addRules([PactMatchingRule.regex("[A-Za-z0-9_-]{43}")], at: path)
            return .string(PKCE.challenge(of: verifier.pactExample.text))
        }
        pact.addRules([PactMatchingRule.regex("[A-Za-z0-9._~-]{43,128}")], at: path)
        return example ?? .string("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
    }
}

extension Matcher.Kind {
    /// The S256 PKCE challenge of `verifier` (``PKCEMatcher``).
    public static func pkceChallenge(verifier: Matcher) -> Self { .typed(PKCEMatcher(verifier: verifier)) }
    /// A PKCE verifier whose S256 is `challenge` (``PKCEMatcher``).
    public static func pkceVerifier(challenge: Matcher) -> Self { .typed(PKCEMatcher(challenge: challenge)) }
}
