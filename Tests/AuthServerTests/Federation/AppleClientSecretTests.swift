import AuthCore
import Crypto
import Foundation
import JWTKit
import Testing

/// Apple's client secret as its documentation describes it, checked by jwt-kit with the
/// team key's public half: ES256 with the key's `kid`; `iss` the team, `sub` the client,
/// `aud` Apple; kept for a day and renewed in its last hour.
@Suite struct AppleClientSecretTests {
    struct Claims: JWTPayload {
        var iss: IssuerClaim
        var sub: SubjectClaim
        var aud: AudienceClaim
        var iat: IssuedAtClaim
        var exp: ExpirationClaim

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    @Test func theSecretIsAnES256JWTForAppleThatJWTKitVerifies() async throws {
        let key = P256.Signing.PrivateKey()
        let secrets = AppleClientSecret(teamID: "ABCDE12345", keyID: "KEY123ABCD", key: key)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let secret = secrets.secret(for: "com.example.app", now: now)

        let keys = JWTKeyCollection()
        await keys.add(ecdsa: try ES256PublicKey(pem: key.publicKey.pemRepresentation), kid: "KEY123ABCD")
        let claims = try await keys.verify(secret, as: Claims.self)
        #expect(claims.iss.value == "ABCDE12345")
        #expect(claims.sub.value == "com.example.app")
        #expect(claims.aud.value == ["https://appleid.apple.com"])
        #expect(claims.iat.value == now)
        #expect(claims.exp.value == now.addingTimeInterval(86_400))
        let header = try #require(secret.split(separator: ".").first)
        let decoded = try #require(Data(base64Encoded: String(header) + String(repeating: "=", count: (4 - header.count % 4) % 4)))
        #expect(String(decoding: decoded, as: UTF8.self) == #"{"alg":"ES256","kid":"KEY123ABCD","typ":"JWT"}"#)

        // The same secret while more than an hour is left; a new one after.
        #expect(secrets.secret(for: "com.example.app", now: now.addingTimeInterval(3_600)) == secret)
        #expect(secrets.secret(for: "com.example.app", now: now.addingTimeInterval(82_900)) != secret)
        #expect(secrets.secret(for: "com.example.web", now: now) != secret)
    }
}
