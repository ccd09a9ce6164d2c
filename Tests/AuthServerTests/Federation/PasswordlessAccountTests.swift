import AuthCore
import AuthPostgres
import AuthServer
import AuthTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JOSE
import NIOCore
import Testing
import WebAuthn

/// An account a provider sign-in made has no password: it deletes itself after a recent
/// sign-in, and its last passkey is kept while it is its only way in.
@Suite struct PasswordlessAccountTests {
    @Test func anAccountWithoutAPasswordDeletesItselfAfterARecentSignIn() async throws {
        let upstream = TestIdentityProvider()
        try await upstream.withRunning { issuer in
            var settingUp = try await ServerFixture()
            let clock = TestClock(now: Date())
            settingUp.configuration.clock = clock
            let fixture = settingUp
            try await fixture.addProvider("test", issuer: issuer)
            let (first, second) = (
                upstream.token(TestIdentityProvider.claims(issuer: issuer)), upstream.token(TestIdentityProvider.claims(issuer: issuer))
            )
            try await fixture.test { client in
                let stale = try IdentityLinkingTests.accessToken(try await IDTokenSignInTests.signIn(client, first))
                clock.advance(by: 301)
                let refused = try await client.sendJSON(.delete, "/me", [:], bearer: stale)
                #expect(refused.status == .unauthorized)
                #expect(try refused.error().code == "insufficient_user_authentication")
                // A password it does not have is wrong.
                let guessed = try await client.sendJSON(.delete, "/me", ["password": "correct horse battery staple"], bearer: stale)
                #expect(guessed.status == .unauthorized)

                let recent = try IdentityLinkingTests.accessToken(try await IDTokenSignInTests.signIn(client, second))
                #expect(try await client.sendJSON(.delete, "/me", [:], bearer: recent).status == .noContent)
            }
            #expect(try await IdentityLinkingTests.userCount(fixture) == 0)
            #expect(try await fixture.auditKinds().contains("user_deleted"))
        }
    }

    @Test func theLastPasskeyOfAnAccountWithoutAPasswordIsKept() async throws {
        let upstream = TestIdentityProvider()
        try await upstream.withRunning { issuer in
            var settingUp = try await PasskeyTests.fixture()
            settingUp.configuration.clock = TestClock(now: Date())
            let fixture = settingUp
            try await fixture.addProvider("test", issuer: issuer)
            let token = upstream.token(TestIdentityProvider.claims(issuer: issuer))
            try await fixture.test { client in
                let access = try IdentityLinkingTests.accessToken(try await IDTokenSignInTests.signIn(client, token))
                var phone = SoftwareAuthenticator(origin: PasskeyTests.origin)
                let options = try PasskeyTests.decode(
                    PublicKeyCredentialCreationOptionsJSON.self,
                    try await client.sendJSON(.post, "/webauthn/register/options", [:], bearer: access))
                let registered = try await PasskeyTests.post(
                    client, "/webauthn/register", PasskeyTests.Registration(credential: try phone.register(options)), bearer: access)
                #expect(registered.status == .created)
                let passkey = Base64URL.encode(try #require(phone.credentialID))
                let identity = try #require(
                    (try await IdentityLinkingTests.me(client, access)["identities"] as? [[String: Any]])?.first?["id"] as? String)

                // With the identity, the passkey goes; without it, it stays.
                #expect(
                    try await client.execute(
                        uri: "/me/identities/\(identity)", method: .delete, headers: [.authorization: "Bearer \(access)"]
                    ).status == .noContent)
                let kept = try await client.execute(
                    uri: "/webauthn/credentials/\(passkey)", method: .delete, headers: [.authorization: "Bearer \(access)"])
                #expect(kept.status == .badRequest)
                #expect(try kept.error().description.contains("only way in"))
            }
        }
    }
}
