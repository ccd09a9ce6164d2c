import AuthCore
import AuthTestSupport
import Crypto
import Foundation
import JOSE
import Testing

@Suite struct AccessTokenIssuerTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000.75)

    func decodeSegment(_ segment: Substring) throws -> [String: Any] {
        let data = try #require(Base64URL.decode(segment))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func issuesAnEdDSATokenWithWholeSecondClaims() async throws {
        let key = SigningKey.generate(now: start)
        let issuer = AccessTokenIssuer(issuer: "https://auth.example", lifetime: 900, clock: TestClock(now: start))
        try issuer.install([key])
        let token = try issuer.issue(subject: "user-1")
        #expect(token.expiresIn == 900)

        let parts = token.value.split(separator: ".")
        #expect(parts.count == 3)
        let header = try decodeSegment(parts[0])
        #expect(header["alg"] as? String == "EdDSA")
        #expect(header["typ"] as? String == "at+jwt")
        #expect(header["kid"] as? String == key.kid)
        let claims = try decodeSegment(parts[1])
        #expect(claims["iss"] as? String == "https://auth.example")
        #expect(claims["sub"] as? String == "user-1")
        #expect((claims["iat"] as? NSNumber)?.stringValue == "1800000000")
        #expect((claims["exp"] as? NSNumber)?.stringValue == "1800000900")
        #expect(UUID(uuidString: try #require(claims["jti"] as? String)) != nil)
        #expect(claims["aud"] == nil)
        #expect(claims["nbf"] == nil)
    }

    @Test func theSignatureVerifiesWithTheJWKAlone() async throws {
        let key = SigningKey.generate(now: start)
        let issuer = AccessTokenIssuer(issuer: "authd", lifetime: 60, clock: TestClock(now: start))
        try issuer.install([key])
        let token = try issuer.issue(subject: "s").value
        let jwk = try #require(issuer.jwks.keys.first)
        #expect(jwk.kty == "OKP" && jwk.crv == "Ed25519" && jwk.alg == "EdDSA" && jwk.kid == key.kid)

        let publicKey = try Curve25519.Signing.PublicKey(rawRepresentation: try #require(Base64URL.decode(jwk.x ?? "")))
        let lastDot = try #require(token.lastIndex(of: "."))
        let signature = try #require(Base64URL.decode(token[token.index(after: lastDot)...]))
        let signed = Data(token[..<lastDot].utf8)
        #expect(publicKey.isValidSignature(signature, for: signed))
        #expect(!publicKey.isValidSignature(signature, for: signed + Data("x".utf8)))
    }

    @Test func verifyChecksExpiryWithTheInjectedClock() async throws {
        let clock = TestClock(now: start)
        let issuer = AccessTokenIssuer(issuer: "authd", lifetime: 900, clock: clock)
        try issuer.install([SigningKey.generate(now: start)])
        let token = try issuer.issue(subject: "s").value
        clock.advance(by: 899)
        #expect(try issuer.verify(token).sub == "s")
        clock.advance(by: 2)
        #expect(throws: AuthError.invalidToken) { try issuer.verify(token) }
    }

    @Test func previousKeysStillVerifyAndUnknownKeysDoNot() async throws {
        let old = SigningKey.generate(now: start)
        let issuer = AccessTokenIssuer(issuer: "authd", lifetime: 900, clock: TestClock(now: start))
        try issuer.install([old])
        let signedWithOld = try issuer.issue(subject: "s").value

        let current = SigningKey.generate(now: start)
        try issuer.install([current, old])
        #expect(issuer.jwks.keys.map(\.kid) == [current.kid, old.kid])
        #expect(try issuer.verify(signedWithOld).sub == "s")

        let stranger = AccessTokenIssuer(issuer: "authd", lifetime: 900, clock: TestClock(now: start))
        try stranger.install([SigningKey.generate(now: start)])
        let foreign = try stranger.issue(subject: "s").value
        #expect(throws: AuthError.invalidToken) { try issuer.verify(foreign) }
        #expect(throws: AuthError.invalidToken) { try issuer.verify("not.a.jwt") }
    }

    @Test func refusesToIssueWithoutAKey() async {
        let issuer = AccessTokenIssuer(issuer: "authd", lifetime: 900, clock: TestClock(now: start))
        #expect(throws: AuthError.self) { try issuer.issue(subject: "s") }
    }

    /// A token signed with the right key that breaks RFC 9068's profile: each is refused,
    /// and the same token with the profile kept is accepted (so the forgery is sound).
    @Test func theRFC9068ProfileIsEnforced() async throws {
        let key = SigningKey.generate(now: start)
        let now = Int(start.timeIntervalSince1970)
        let issuer = AccessTokenIssuer(
            issuer: "authd", lifetime: 900, audiences: ["https://api.example", "https://mail.example"], clock: TestClock(now: start))
        try issuer.install([key])
        let issued = try issuer.issue(subject: "s").value
        let jws = try #require(CompactJWS(issued))
        let claims = try #require(try JSONSerialization.jsonObject(with: jws.payload) as? [String: Any])
        #expect(claims["aud"] as? [String] == ["https://api.example", "https://mail.example"])

        func token(header: [String: Any], claims extra: [String: Any] = [:], dropping: String? = nil) throws -> String {
            var body: [String: Any] = [
                "iss": "authd", "sub": "s", "iat": now, "exp": now + 900, "jti": "j", "aud": ["https://api.example"],
            ]
            body.merge(extra) { _, new in new }
            if let dropping { body[dropping] = nil }
            let head = try JSONSerialization.data(withJSONObject: ["alg": "EdDSA", "kid": key.kid].merging(header) { _, new in new })
            return try CompactJWS.serialize(header: head, payload: try JSONSerialization.data(withJSONObject: body)) {
                try key.signingKey().signature(for: $0)
            }
        }
        #expect(try issuer.verify(try token(header: ["typ": "at+jwt"])).sub == "s")
        #expect(try issuer.verify(try token(header: ["typ": "application/AT+JWT"])).sub == "s")
        #expect(try issuer.verify(try token(header: ["typ": "at+jwt"], claims: ["nbf": now])).sub == "s")
        let refused: [(String, String)] = [
            ("typ JWT (an ID token or another JWT)", try token(header: ["typ": "JWT"])),
            ("no typ", try token(header: [:])),
            ("an unknown crit extension", try token(header: ["typ": "at+jwt", "crit": ["exp-v2"], "exp-v2": 1])),
            ("an empty crit", try token(header: ["typ": "at+jwt", "crit": [String]()])),
            ("nbf an hour ahead", try token(header: ["typ": "at+jwt"], claims: ["nbf": now + 3600])),
            ("another audience", try token(header: ["typ": "at+jwt"], claims: ["aud": ["https://other.example"]])),
            ("no audience", try token(header: ["typ": "at+jwt"], dropping: "aud")),
        ]
        for (what, forged) in refused {
            #expect(throws: AuthError.invalidToken, "\(what)") { try issuer.verify(forged) }
        }
    }
}
