import AuthCore
import AuthPostgres
import AuthServer
import AuthTestSupport
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JOSE
import NIOCore
import PostgresNIO
import Testing

/// Sign in with Apple's authorization code: exchanged at the provider's token endpoint with
/// the ES256 client secret authd signs, its refresh token kept sealed, and revoked at the
/// provider when a newer one replaces it or the account is deleted — retried until done.
@Suite struct AppleCodeSignInTests {
    static let teamID = "TEAM123456"
    static let keyID = "KEY1234567"
    static let appleKey = P256.Signing.PrivateKey()

    /// The fixture (revocations sent every 100 ms) with the test provider added as kind apple.
    static func fixture(issuer: String) async throws -> ServerFixture {
        var fixture = try await ServerFixture()
        fixture.configuration.providerRevocationInterval = .milliseconds(100)
        try await fixture.addProvider("apple", issuer: issuer, kind: .apple, apple: (teamID, keyID, appleKey))
        return fixture
    }

    static func signIn(_ client: some TestClientProtocol, code: String, clientID: String? = nil) async throws -> TestResponse {
        var body: [String: Any] = ["provider": "apple", "authorization_code": code, "nonce": TestIdentityProvider.rawNonce]
        body["client_id"] = clientID
        return try await client.sendJSON(.post, "/login/id-token", body)
    }

    /// The client secret a form carried is Apple's: ES256 under the team's key, naming the
    /// key, the team, the client and Apple.
    static func expectAppleClientSecret(_ form: [String: String]) throws {
        let secret = try #require(form["client_secret"])
        let parts = secret.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 3)
        let (headerData, claimsData) = (try #require(Base64URL.decode(parts[0])), try #require(Base64URL.decode(parts[1])))
        let header = try #require(try JSONSerialization.jsonObject(with: headerData) as? [String: Any])
        let claims = try #require(try JSONSerialization.jsonObject(with: claimsData) as? [String: Any])
        #expect(header["alg"] as? String == "ES256")
        #expect(header["kid"] as? String == keyID)
        #expect(claims["iss"] as? String == teamID)
        #expect(claims["sub"] as? String == TestIdentityProvider.audience)
        #expect(claims["aud"] as? String == "https://appleid.apple.com")
        let signatureData = try #require(Base64URL.decode(parts[2]))
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: signatureData)
        #expect(appleKey.publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))
        #expect(form["client_id"] == TestIdentityProvider.audience)
    }

    @Test func aCodeSignsInAndItsRefreshTokensAreRevokedWhenReplacedAndWhenTheAccountIsDeleted() async throws {
        let upstream = TestIdentityProvider()
        try await upstream.withRunning { issuer in
            let fixture = try await Self.fixture(issuer: issuer)
            try await fixture.test { client async throws in
                let first = upstream.issueCode(
                    for: upstream.token(TestIdentityProvider.claims(issuer: issuer)), refreshToken: "r.the-first-refresh-token")
                let signedIn = try await Self.signIn(client, code: first)
                #expect(signedIn.status == .ok)
                try Self.expectAppleClientSecret(try #require(upstream.tokenForms.first))
                #expect(upstream.tokenForms.first?["code"] == first)
                // A code works once (the provider refuses it again).
                let again = try await Self.signIn(client, code: first)
                #expect(again.status == .unauthorized)
                #expect(try again.error().code == "invalid_credentials")

                // Kept sealed: no trace of the token in the identity's row.
                let stored = try await fixture.withDatabase { database async throws in
                    try await database.client.query("SELECT sealed_refresh_token FROM identities").decode(ByteBuffer?.self)
                        .reduce(into: [ByteBuffer?]()) { $0.append($1) }
                }
                let sealed = try #require(stored.first.flatMap { $0 })
                #expect(!String(decoding: Data(buffer: sealed), as: UTF8.self).contains("the-first-refresh-token"))

                // A second sign-in's token replaces the first, which is revoked.
                let second = upstream.issueCode(
                    for: upstream.token(TestIdentityProvider.claims(issuer: issuer)), refreshToken: "r.the-second-refresh-token")
                let access = try IdentityLinkingTests.accessToken(try await Self.signIn(client, code: second))
                try await Polling.until("Apple is asked to revoke the first token", within: .seconds(60)) {
                    upstream.revocationForms.count >= 1
                }
                #expect(upstream.revocationForms.map { $0["token"] } == ["r.the-first-refresh-token"])

                // Deleting the account revokes the one it has.
                #expect(try await client.sendJSON(.delete, "/me", [:], bearer: access).status == .noContent)
                try await Polling.until("Apple is asked to revoke the second token", within: .seconds(60)) {
                    upstream.revocationForms.count >= 2
                }
                let forms = upstream.revocationForms
                #expect(forms.map { $0["token"] } == ["r.the-first-refresh-token", "r.the-second-refresh-token"])
                #expect(forms.allSatisfy { $0["token_type_hint"] == "refresh_token" })
                for form in forms { try Self.expectAppleClientSecret(form) }
                // The provider answered; authd records it next.
                try await Polling.until("both revocations are audited", within: .seconds(60)) {
                    try await fixture.auditKinds().filter { $0 == "provider_token_revoked" }.count == 2
                }
            }
            #expect(try await fixture.auditKinds().filter { $0 == "provider_token_revoked" }.count == 2)
            // Done: the queue keeps no token.
            let left = try await PasswordResetTests.count(
                "SELECT count(*)::int8 FROM provider_revocations WHERE sealed_token IS NOT NULL OR revoked_at IS NULL", in: fixture)
            #expect(left == 0)
        }
    }

    @Test func aRefusedRevocationIsTriedAgainUntilItIsDone() async throws {
        let upstream = TestIdentityProvider()
        try await upstream.withRunning { issuer in
            let fixture = try await Self.fixture(issuer: issuer)
            upstream.refuseRevocations(true)
            try await fixture.test { client async throws in
                let code = upstream.issueCode(for: upstream.token(TestIdentityProvider.claims(issuer: issuer)), refreshToken: "r.kept")
                let access = try IdentityLinkingTests.accessToken(try await Self.signIn(client, code: code))
                #expect(try await client.sendJSON(.delete, "/me", [:], bearer: access).status == .noContent)
                let attempts = { @Sendable in
                    try await PasswordResetTests.count("SELECT coalesce(max(attempts), 0)::int8 FROM provider_revocations", in: fixture)
                }
                try await Polling.until("the revocation is tried twice", within: .seconds(60)) { try await attempts() >= 2 }
                #expect(try await attempts() >= 2)
                #expect(upstream.revocationForms.isEmpty)
                upstream.refuseRevocations(false)
                try await Polling.until("Apple is asked to revoke the token", within: .seconds(60)) { upstream.revocationForms.count == 1 }
                #expect(upstream.revocationForms.map { $0["token"] } == ["r.kept"])
                try await Polling.until("the revocation is audited", within: .seconds(60)) {
                    try await fixture.auditKinds().contains("provider_token_revoked")
                }
            }
            #expect(try await fixture.auditKinds().contains("provider_token_revoked"))
        }
    }

    @Test func aCodeForAnotherClientOrWithAnIDTokenIsABadRequest() async throws {
        let upstream = TestIdentityProvider()
        try await upstream.withRunning { issuer in
            let fixture = try await Self.fixture(issuer: issuer)
            try await fixture.test { client async throws in
                let code = upstream.issueCode(for: upstream.token(TestIdentityProvider.claims(issuer: issuer)))
                let other = try await Self.signIn(client, code: code, clientID: "com.example.other")
                #expect(other.status == .badRequest)
                let both = try await client.sendJSON(
                    .post, "/login/id-token", ["provider": "apple", "authorization_code": code, "id_token": "x.y.z"])
                #expect(both.status == .badRequest)
                let neither = try await client.sendJSON(.post, "/login/id-token", ["provider": "apple"])
                #expect(neither.status == .badRequest)
                #expect(upstream.tokenForms.isEmpty)
                // A code whose ID token is another audience's is refused after the exchange.
                var claims = TestIdentityProvider.claims(issuer: issuer)
                claims["aud"] = "com.example.other"
                let foreign = try await Self.signIn(client, code: upstream.issueCode(for: upstream.token(claims)))
                #expect(foreign.status == .unauthorized)
                #expect(try foreign.error().code == "invalid_credentials")
            }
            #expect(try await IdentityLinkingTests.userCount(fixture) == 0)
        }
    }
}
