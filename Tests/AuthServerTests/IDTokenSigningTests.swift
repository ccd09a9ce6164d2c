import AuthCore
import Foundation
import JOSE
import JWTKit
import Testing

/// ID tokens signed with each algorithm authd keeps a key of, checked by jwt-kit against
/// authd's published JWKS, as a relying party checks them; an ID token is never an access
/// token.
@Suite struct IDTokenSigningTests {
    struct IDToken: JWTPayload {
        var iss: IssuerClaim
        var sub: SubjectClaim
        var aud: AudienceClaim
        var exp: ExpirationClaim
        var nonce: String?
        var atHash: String?

        enum CodingKeys: String, CodingKey {
            case iss, sub, aud, exp, nonce
            case atHash = "at_hash"
        }

        func verify(using algorithm: some JWTAlgorithm) async throws {
            try exp.verifyNotExpired()
            try aud.verifyIntendedAudience(includes: "phone-app")
        }
    }

    static let now = Date()

    static func issuer() throws -> AccessTokenIssuer {
        let issuer = AccessTokenIssuer(issuer: "https://auth.example", lifetime: 900, clock: SystemClock())
        try issuer.install(try SigningAlgorithm.allCases.map { try SigningKey.generate(now: now, algorithm: $0) })
        return issuer
    }

    static func claims(accessToken: String, algorithm: SigningAlgorithm) -> IDTokenClaims {
        let grant = AuthorizationCode(
            codeHash: "", clientID: "phone-app", userID: UUID(), redirectURI: "com.example.app:/cb", scopes: ["openid"], nonce: "n-0S6",
            codeChallenge: nil, authTime: now, methods: ["pwd"], expiresAt: now)
        return IDTokenClaims(
            grant: grant, issuer: "https://auth.example", sessionID: UUID(), accessToken: accessToken, algorithm: algorithm.rawValue,
            now: now)
    }

    @Test(arguments: SigningAlgorithm.allCases)
    func jwtKitVerifiesAnIDTokenOfEachAlgorithmWithThePublishedKeys(algorithm: SigningAlgorithm) async throws {
        let issuer = try Self.issuer()
        let access = try issuer.issue(subject: "someone").value
        let idToken = try issuer.signIDToken(Self.claims(accessToken: access, algorithm: algorithm), algorithm: algorithm)
        let keys = JWTKeyCollection()
        try await keys.add(jwksJSON: String(decoding: try JSONEncoder().encode(issuer.jwks), as: UTF8.self))
        let verified = try await keys.verify(idToken, as: IDToken.self)
        #expect(verified.nonce == "n-0S6")
        #expect(verified.atHash == TokenHash.of(access, algorithm: algorithm.rawValue))
        let header = try #require(Base64URL.decode(idToken.split(separator: ".")[0]))
        let fields = try #require(try JSONSerialization.jsonObject(with: header) as? [String: String])
        #expect(fields["alg"] == algorithm.rawValue && fields["typ"] == "JWT")
        #expect(issuer.jwks.keys.contains { $0.kid == fields["kid"] && $0.alg == algorithm.rawValue })
    }

    /// RFC 9068 §4: an ID token (`typ: JWT`, another key) is not an access token.
    @Test(arguments: SigningAlgorithm.allCases)
    func anIDTokenIsRefusedAsAnAccessToken(algorithm: SigningAlgorithm) throws {
        let issuer = try Self.issuer()
        let idToken = try issuer.signIDToken(Self.claims(accessToken: "x", algorithm: algorithm), algorithm: algorithm)
        #expect(throws: AuthError.invalidToken) { try issuer.verify(idToken) }
    }

    /// One key of each algorithm is published, the Ed25519 key that signs access tokens first.
    @Test func theJWKSPublishesOneKeyOfEachAlgorithm() throws {
        let jwks = try Self.issuer().jwks
        #expect(jwks.keys.map(\.alg) == ["EdDSA", "RS256", "ES256"])
        #expect(jwks.keys.map(\.kty) == ["OKP", "RSA", "EC"])
        let rsa = try #require(jwks.keys.first { $0.kty == "RSA" })
        #expect(rsa.e == "AQAB")
        #expect(Base64URL.decode(rsa.n ?? "")?.count == 256)
    }
}
