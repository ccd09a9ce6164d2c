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
        try await issuer.install([key])
        let token = try await issuer.issue(subject: "user-1")
        #expect(token.expiresIn == 900)

        let parts = token.value.split(separator: ".")
        #expect(parts.count == 3)
        let header = try decodeSegment(parts[0])
        #expect(header["alg"] as? String == "EdDSA")
        #expect(header["kid"] as? String == key.kid)
        let claims = try decodeSegment(parts[1])
        #expect(claims["iss"] as? String == "https://auth.example")
        #expect(claims["sub"] as? String == "user-1")
        #expect((claims["iat"] as? NSNumber)?.stringValue == "1800000000")
        #expect((claims["exp"] as? NSNumber)?.stringValue == "1800000900")
        #expect(UUID(uuidString: try #require(claims["jti"] as? String)) != nil)
    }

    @Test func theSignatureVerifiesWithTheJWKAlone() async throws {
        let key = SigningKey.generate(now: start)
        let issuer = AccessTokenIssuer(issuer: "authd", lifetime: 60, clock: TestClock(now: start))
        try await issuer.install([key])
        let token = try await issuer.issue(subject: "s").value
        let jwk = try #require(await issuer.jwks.keys.first)
        #expect(jwk.kty == "OKP" && jwk.crv == "Ed25519" && jwk.alg == "EdDSA" && jwk.kid == key.kid)

        let publicKey = try Curve25519.Signing.PublicKey(rawRepresentation: try #require(Base64URL.decode(jwk.x)))
        let lastDot = try #require(token.lastIndex(of: "."))
        let signature = try #require(Base64URL.decode(token[token.index(after: lastDot)...]))
        let signed = Data(token[..<lastDot].utf8)
        #expect(publicKey.isValidSignature(signature, for: signed))
        #expect(!publicKey.isValidSignature(signature, for: signed + Data("x".utf8)))
    }

    @Test func verifyChecksExpiryWithTheInjectedClock() async throws {
        final class Box: WallClock, @unchecked Sendable {
            var now: Date
            init(_ now: Date) { self.now = now }
        }
        let clock = Box(start)
        let issuer = AccessTokenIssuer(issuer: "authd", lifetime: 900, clock: clock)
        try await issuer.install([SigningKey.generate(now: start)])
        let token = try await issuer.issue(subject: "s").value
        clock.now = start.addingTimeInterval(899)
        #expect(try await issuer.verify(token).sub == "s")
        clock.now = start.addingTimeInterval(901)
        await #expect(throws: AuthError.invalidToken) { try await issuer.verify(token) }
    }

    @Test func previousKeysStillVerifyAndUnknownKeysDoNot() async throws {
        let old = SigningKey.generate(now: start)
        let issuer = AccessTokenIssuer(issuer: "authd", lifetime: 900, clock: TestClock(now: start))
        try await issuer.install([old])
        let signedWithOld = try await issuer.issue(subject: "s").value

        let current = SigningKey.generate(now: start)
        try await issuer.install([current, old])
        #expect(await issuer.jwks.keys.map(\.kid) == [current.kid, old.kid])
        #expect(try await issuer.verify(signedWithOld).sub == "s")

        let stranger = AccessTokenIssuer(issuer: "authd", lifetime: 900, clock: TestClock(now: start))
        try await stranger.install([SigningKey.generate(now: start)])
        let foreign = try await stranger.issue(subject: "s").value
        await #expect(throws: AuthError.invalidToken) { try await issuer.verify(foreign) }
        await #expect(throws: AuthError.invalidToken) { try await issuer.verify("not.a.jwt") }
    }

    @Test func refusesToIssueWithoutAKey() async {
        let issuer = AccessTokenIssuer(issuer: "authd", lifetime: 900, clock: TestClock(now: start))
        await #expect(throws: AuthError.self) { try await issuer.issue(subject: "s") }
    }
}
