import JOSE

/// `{ match: at_hash }`: an ID token's `at_hash` claim (OpenID Connect Core §3.1.3.6), the
/// left half of the hash of the `access_token` of the same token response, with the hash of
/// the ID token's `alg` (``JOSE/TokenHash``). Written as a claim of a `jwt` that is a member
/// of a response body beside `access_token`: `contract verify` checks it against the
/// answer's access token and the ID token's header, and the stub computes it for the access
/// token it hands out with it. Anywhere else (no access token beside it) only its form is
/// checked: the base64url of 16, 24 or 32 bytes.
///
/// ```yaml
/// json:
///   access_token: { match: jwt }
///   id_token: { match: jwt, claims: { nonce: "{{nonce}}", at_hash: { match: at_hash } } }
/// ```
public struct AtHashMatcher: MatcherKind {
    /// The access token of the response, once bound (``Matcher/bindingAccessTokenHashes(accessToken:algorithm:)``).
    public var accessToken: String?
    /// The `alg` of the ID token, once bound.
    public var algorithm: String?

    public init(accessToken: String? = nil, algorithm: String? = nil) {
        self.accessToken = accessToken
        self.algorithm = algorithm
    }

    public static let names = ["at_hash"]

    public static func read(_ name: String, from arguments: inout some MatcherArguments) -> Self? { Self() }

    public func mismatches(in actual: JSONValue, at path: String, strict: Bool) -> [Mismatch] {
        guard case .string(let text) = actual, TokenHash.isHash(text) else { return check(false, actual, at: path) }
        guard let accessToken, let algorithm else { return [] }
        let expected = TokenHash.of(accessToken, algorithm: algorithm)
        return check(ConstantTime.equal(Array(text.utf8), Array(expected.utf8)), actual, at: path)
    }

    public var summary: String {
        accessToken == nil ? "an at_hash (base64url of 16, 24 or 32 bytes)" : "the at_hash of the response's access_token"
    }
    public var jsonType: String? { "string" }

    public func sample(at path: String, example: JSONValue?, with context: SampleContext) throws -> JSONValue {
        if let accessToken, let algorithm { return .string(TokenHash.of(accessToken, algorithm: algorithm)) }
        if let example { return example }
        throw MatcherSampleError(path: path, reason: "an at_hash needs an access_token beside its ID token, or an example")
    }

    public func jsonSchema(child: (Matcher) -> [String: JSONValue]) -> [String: JSONValue] {
        [
            "type": "string", "pattern": "^([A-Za-z0-9_-]{22}|[A-Za-z0-9_-]{32}|[A-Za-z0-9_-]{43})$",
            "description": "The left half of the hash of the access token (OpenID Connect Core §3.1.3.6).",
        ]
    }

    public func pact(_ pact: inout some PactRendering, at path: String, example: JSONValue?) -> JSONValue? {
        pact.note("\(path) is the at_hash of the response's access token: Pact checks its form only")
        pact.addRules([PactMatchingRule.regex("[A-Za-z0-9_-]{22}|[A-Za-z0-9_-]{32}|[A-Za-z0-9_-]{43}")], at: path)
        return example ?? .string("Ro0ayxtUo87-ieV6NK0VMA")
    }
}

extension Matcher.Kind {
    /// An ID token's `at_hash` (``AtHashMatcher``).
    public static var atHash: Self { .typed(AtHashMatcher()) }
}

extension Matcher {
    /// This body's matcher with the `at_hash` claims of the `jwt` members beside an
    /// `access_token` bound to that token, each with the `alg` `algorithm` gives for its
    /// member's name (nil: the claim is left to its form).
    ///
    /// ```swift
    /// matcher.bindingAccessTokenHashes(accessToken: token, algorithm: { _ in "EdDSA" })
    /// ```
    public func bindingAccessTokenHashes(accessToken: String, algorithm: (String) -> String?) -> Matcher {
        guard case .object(let members) = kind, hasAccessTokenHashes else { return self }
        var bound = members
        for (name, member) in members {
            guard let jwt = member.kind.as(JWTMatcher.self), jwt.claims.values.contains(where: \.isAtHash),
                let alg = algorithm(name)
            else { continue }
            let claims = jwt.claims.mapValues { claim in
                claim.isAtHash
                    ? Matcher(
                        .typed(AtHashMatcher(accessToken: accessToken, algorithm: alg)), example: claim.example, optional: claim.optional)
                    : claim
            }
            bound[name] = Matcher(
                .typed(JWTMatcher(claims: claims, signed: jwt.signed)), example: member.example, optional: member.optional)
        }
        return Matcher(.object(bound), example: example, optional: optional)
    }

    /// This matcher with its `at_hash` claims bound to the `access_token` of `body`, the
    /// answer it checks, and to the `alg` of each ID token there.
    public func bindingAccessTokenHashes(in body: JSONValue) -> Matcher {
        guard case .object(let values) = body, case .string(let accessToken)? = values["access_token"] else { return self }
        return bindingAccessTokenHashes(accessToken: accessToken) { name in
            if case .string(let token)? = values[name] { JWTShape.algorithm(of: token) } else { nil }
        }
    }

    /// Whether this is a body with a `jwt` member that has an `at_hash` claim.
    public var hasAccessTokenHashes: Bool {
        guard case .object(let members) = kind else { return false }
        return members.values.contains { $0.kind.as(JWTMatcher.self)?.claims.values.contains(where: \.isAtHash) == true }
    }

    var isAtHash: Bool { kind.as(AtHashMatcher.self) != nil }
}
