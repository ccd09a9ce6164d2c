import ContractKit
import Foundation

/// Builds a value that satisfies a matcher (``ContractKit/Matcher/sampleValue(at:minter:)``),
/// with real tokens: a `jwt` is signed by the stub's key, a `jwks` is that key's set.
struct ResponseGenerator: TokenMinter {
    let signer: StubSigner
    /// The stub's time, for the tokens' `iat` and `exp`.
    var now = Date()

    /// A value for `matcher`.
    /// - Throws: ``ContractKit/MatcherSampleError`` when one cannot be made (a regex without example).
    func value(for matcher: Matcher, at path: String) throws -> JSONValue {
        try matcher.sampleValue(at: path, minter: self)
    }

    func jwt(claims: [String: Matcher], at path: String) throws -> JSONValue {
        // The signer's own claims where they satisfy the contract (a live `exp`), the
        // contract's example or a generated value where they do not.
        var standard = signer.claims(subject: "stub-user", lifetime: 900, now: now)
        for (name, claim) in claims.sorted(by: { $0.key < $1.key }) {
            if let current = standard[name], claim.mismatches(in: current).isEmpty { continue }
            standard[name] = try value(for: claim, at: "\(path).\(name)")
        }
        return .string(signer.token(claims: standard))
    }

    var jwks: JSONValue { signer.jwks }

    /// `matcher` with its `access_token` made first, so that the ID tokens beside it carry
    /// its `at_hash`.
    func bindingAccessTokenHashes(_ matcher: Matcher) throws -> Matcher {
        guard matcher.hasAccessTokenHashes, case .object(var members) = matcher.kind, let access = members["access_token"] else {
            return matcher
        }
        let token = try value(for: access, at: "$.access_token")
        members["access_token"] = Matcher(.literal(token))
        return Matcher(.object(members), example: matcher.example, optional: matcher.optional)
            .bindingAccessTokenHashes(accessToken: token.text) { _ in StubSigner.algorithm }
    }
}
