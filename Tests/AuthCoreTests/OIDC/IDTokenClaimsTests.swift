import AuthCore
import Foundation
import Testing

/// An ID token says who signed in, for which client, when and how, and binds its access token.
@Suite struct IDTokenClaimsTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func grant(methods: [String], nonce: String? = "n-0S6_WzA2Mj") -> AuthorizationCode {
        AuthorizationCode(
            codeHash: "h", clientID: "phone-app", userID: UUID(uuidString: "8C0E6A9B-2F1D-4A49-9C55-0F8E3C2D1A7B")!,
            redirectURI: "com.example.app:/callback", scopes: ["openid"], nonce: nonce, codeChallenge: nil,
            authTime: now.addingTimeInterval(-30), methods: methods, expiresAt: now)
    }

    @Test func theClaimsOfASignInWithAPassword() throws {
        let session = UUID()
        let claims = IDTokenClaims(
            grant: Self.grant(methods: ["pwd"]), issuer: "https://auth.example.com", sessionID: session, accessToken: "token",
            algorithm: "RS256", now: Self.now)
        #expect(claims.sub == "8c0e6a9b-2f1d-4a49-9c55-0f8e3c2d1a7b" && claims.aud == ["phone-app"] && claims.azp == "phone-app")
        #expect(claims.iat == 1_800_000_000 && claims.exp == 1_800_000_300 && claims.authTime == 1_799_999_970)
        #expect(claims.nonce == "n-0S6_WzA2Mj" && claims.sid == session.uuidString.lowercased())
        #expect(claims.amr == ["pwd"] && claims.acr == "1")
        let json = String(decoding: try JSONEncoder().encode(claims), as: UTF8.self)
        #expect(json.contains("\"auth_time\":1799999970") && json.contains("\"at_hash\":"))
    }

    @Test func twoFactorsAreMFA() {
        let claims = IDTokenClaims(
            grant: Self.grant(methods: ["pwd", "otp"], nonce: nil), issuer: "i", sessionID: nil, accessToken: nil, algorithm: "RS256",
            now: Self.now)
        #expect(claims.amr == ["pwd", "otp", "mfa"] && claims.acr == "2" && claims.nonce == nil && claims.atHash == nil)
        let passkey = IDTokenClaims(
            grant: Self.grant(methods: ["hwk"]), issuer: "i", sessionID: nil, accessToken: nil, algorithm: "RS256", now: Self.now)
        #expect(passkey.amr == ["hwk"] && passkey.acr == "1")
    }
}
