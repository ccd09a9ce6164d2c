import AuthCore
import AuthPostgres
import AuthServer
import AuthTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// The rules that keep a provider sign-in from taking over an account: an identity is
/// `(provider, sub)`; a verified email that is an account's own is linked only after that
/// account's owner signs in and confirms; an unverified one links nothing; the last way in
/// is never unlinked.
@Suite struct IdentityLinkingTests {
    static let password = "correct horse battery staple"

    /// alice, whose email `sam@example.com` is verified unless `verified` is false.
    static func fixture(issuer: String, verified: Bool = true, createsAccounts: Bool = true) async throws -> ServerFixture {
        var fixture = try await ServerFixture()
        fixture.configuration.clock = TestClock(now: Date())
        try await fixture.addUser("alice", password: password)
        _ = try await fixture.withDatabase { database async throws in
            try await database.client.query(
                "UPDATE users SET email = 'sam@example.com', email_key = 'sam@example.com', email_verified_at = \(verified ? Date() : nil)")
        }
        try await fixture.addProvider("test", issuer: issuer, createsAccounts: createsAccounts)
        return fixture
    }

    static func accessToken(_ response: TestResponse) throws -> String {
        try #require(try response.json()["access_token"] as? String)
    }

    /// `GET /me` with the `identities` of `GET /me/identities`.
    static func me(_ client: some TestClientProtocol, _ access: String) async throws -> [String: Any] {
        var me = try await client.execute(uri: "/me", method: .get, headers: [.authorization: "Bearer \(access)"]).json()
        let identities = try await client.execute(uri: "/me/identities", method: .get, headers: [.authorization: "Bearer \(access)"])
        #expect(identities.status == .ok)
        me["identities"] = try identities.json()["identities"]
        return me
    }

    static func userCount(_ fixture: ServerFixture) async throws -> Int {
        try await fixture.withDatabase { database async throws in
            try await database.client.query("SELECT count(*)::int8 FROM users").decode(Int.self).first { _ in true } ?? -1
        }
    }

    @Test func aVerifiedEmailOfAnAccountLinksOnlyAfterItsOwnerSignsInAndConfirms() async throws {
        let upstream = TestIdentityProvider()
        try await upstream.withRunning { issuer in
            let fixture = try await Self.fixture(issuer: issuer)
            let (first, second, third, fourth) = (
                upstream.token(TestIdentityProvider.claims(issuer: issuer)), upstream.token(TestIdentityProvider.claims(issuer: issuer)),
                upstream.token(TestIdentityProvider.claims(issuer: issuer)), upstream.token(TestIdentityProvider.claims(issuer: issuer))
            )
            try await fixture.addUser("bob", password: Self.password)
            try await fixture.test { client in
                let refused = try await IDTokenSignInTests.signIn(client, first)
                #expect(refused.status == .conflict)
                #expect(try refused.error().code == "link_required")
                let linkToken = try #require(try refused.json()["link_token"] as? String)
                #expect(try refused.json()["access_token"] == nil)
                // Nothing was linked or made.
                #expect(try await IDTokenSignInTests.signIn(client, second).status == .conflict)

                // Another account's session cannot take the link.
                let bob = try Self.accessToken(try await client.login("bob", Self.password))
                let stolen = try await client.sendJSON(.post, "/me/identities", ["link_token": linkToken], bearer: bob)
                #expect(stolen.status == .unauthorized)

                // A fresh one, confirmed by alice signed in with her password.
                let again = try await IDTokenSignInTests.signIn(client, third)
                let fresh = try #require(try again.json()["link_token"] as? String)
                let alice = try Self.accessToken(try await client.login("alice", Self.password))
                let linked = try await client.sendJSON(.post, "/me/identities", ["link_token": fresh], bearer: alice)
                #expect(linked.status == .created)
                #expect(try linked.json()["provider"] as? String == "test")
                let replayed = try await client.sendJSON(.post, "/me/identities", ["link_token": fresh], bearer: alice)
                #expect(replayed.status == .unauthorized)

                let signedIn = try await IDTokenSignInTests.signIn(client, fourth)
                #expect(signedIn.status == .ok)
                let profile = try await Self.me(client, try Self.accessToken(signedIn))
                #expect(profile["username"] as? String == "alice")
                #expect((profile["identities"] as? [[String: Any]])?.count == 1)
            }
            #expect(try await Self.userCount(fixture) == 2)
            #expect(try await fixture.auditDetails(of: "identity_link_required") == ["test", "test", "test"])
            #expect(try await fixture.auditDetails(of: "identity_linked") == ["test:confirmed"])
        }
    }

    @Test func anUnverifiedEmailAtTheProviderLinksNothingAndTakesNoAddress() async throws {
        let upstream = TestIdentityProvider()
        try await upstream.withRunning { issuer in
            let fixture = try await Self.fixture(issuer: issuer)
            let token = upstream.token(TestIdentityProvider.claims(issuer: issuer, verified: false))
            try await fixture.test { client in
                let answer = try await IDTokenSignInTests.signIn(client, token)
                #expect(answer.status == .ok)
                let profile = try await Self.me(client, try Self.accessToken(answer))
                #expect(profile["username"] as? String != "alice")
                #expect(profile["username"] as? String != "sam@example.com")
            }
            let emails = try await fixture.withDatabase { database async throws in
                var emails: [String?] = []
                for try await email in try await database.client.query("SELECT email FROM users ORDER BY username").decode(String?.self) {
                    emails.append(email)
                }
                return emails
            }
            #expect(emails == ["sam@example.com", nil])
        }
    }

    /// Apple says `"email_verified": "true"`, a string: it is a verified email too.
    @Test func applesStringFlagIsAVerifiedEmail() async throws {
        let upstream = TestIdentityProvider()
        try await upstream.withRunning { issuer in
            let fixture = try await Self.fixture(issuer: issuer)
            var claims = TestIdentityProvider.claims(issuer: issuer)
            claims["email_verified"] = "true"
            let (string, falseString) = (
                upstream.token(claims), upstream.token(TestIdentityProvider.claims(issuer: issuer, subject: "user-2", verified: false))
            )
            try await fixture.test { client async throws in
                #expect(try await IDTokenSignInTests.signIn(client, string).error().code == "link_required")
                #expect(try await IDTokenSignInTests.signIn(client, falseString).status == .ok)
            }
        }
    }

    @Test func anAccountsUnverifiedAddressGoesToTheSignInThatProvedIt() async throws {
        let upstream = TestIdentityProvider()
        try await upstream.withRunning { issuer in
            // Someone registered alice with sam's address and never proved it (a pre-hijack).
            let fixture = try await Self.fixture(issuer: issuer, verified: false)
            let token = upstream.token(TestIdentityProvider.claims(issuer: issuer))
            try await fixture.test { client in
                let answer = try await IDTokenSignInTests.signIn(client, token)
                #expect(answer.status == .ok)
                let profile = try await Self.me(client, try Self.accessToken(answer))
                #expect(profile["username"] as? String == "sam@example.com")
                // alice is not the account signed in to.
                let alice = try await Self.me(client, try Self.accessToken(try await client.login("alice", Self.password)))
                #expect(alice["user_id"] as? String != profile["user_id"] as? String)
            }
            #expect(try await fixture.auditDetails(of: "unverified_email_released") == ["test"])
        }
    }

    @Test func theLastWayInIsNeverUnlinked() async throws {
        let upstream = TestIdentityProvider()
        let other = TestIdentityProvider()
        try await upstream.withRunning { issuer in
            try await other.withRunning { otherIssuer in
                let fixture = try await Self.fixture(issuer: issuer)
                try await fixture.addProvider("other", issuer: otherIssuer)
                let token = upstream.token(TestIdentityProvider.claims(issuer: issuer, email: nil))
                let otherToken = other.token(TestIdentityProvider.claims(issuer: otherIssuer, subject: "other-1", email: nil))
                try await fixture.test { client in
                    let access = try Self.accessToken(try await IDTokenSignInTests.signIn(client, token))
                    let only = try #require((try await Self.me(client, access)["identities"] as? [[String: Any]])?.first?["id"] as? String)
                    let refused = try await client.execute(
                        uri: "/me/identities/\(only)", method: .delete, headers: [.authorization: "Bearer \(access)"])
                    #expect(refused.status == .badRequest)
                    #expect(try refused.error().description.contains("only way in"))

                    let linked = try await client.sendJSON(
                        .post, "/me/identities", ["provider": "other", "id_token": otherToken, "nonce": TestIdentityProvider.rawNonce],
                        bearer: access)
                    #expect(linked.status == .created)
                    let removed = try await client.execute(
                        uri: "/me/identities/\(only)", method: .delete, headers: [.authorization: "Bearer \(access)"])
                    #expect(removed.status == .noContent)
                    let left = try #require(try await Self.me(client, access)["identities"] as? [[String: Any]])
                    #expect(left.map { $0["provider"] as? String } == ["other"])
                    let last = try #require(left.first?["id"] as? String)
                    let kept = try await client.execute(
                        uri: "/me/identities/\(last)", method: .delete, headers: [.authorization: "Bearer \(access)"])
                    #expect(kept.status == .badRequest)
                }
                #expect(try await fixture.auditDetails(of: "identity_unlinked") == ["test"])
            }
        }
    }

    @Test func twoFirstSignInsOfOneIdentityAtOnceMakeOneAccount() async throws {
        let upstream = TestIdentityProvider()
        try await upstream.withRunning { issuer in
            let fixture = try await Self.fixture(issuer: issuer)
            let tokens = (0..<4).map { _ in upstream.token(TestIdentityProvider.claims(issuer: issuer, subject: "new-1", email: nil)) }
            let users = try await fixture.test { client in
                try await withThrowingTaskGroup(of: String?.self) { group in
                    for token in tokens {
                        group.addTask {
                            let answer = try await IDTokenSignInTests.signIn(client, token)
                            return try await Self.me(client, try Self.accessToken(answer))["user_id"] as? String
                        }
                    }
                    var users = Set<String?>()
                    for try await user in group { users.insert(user) }
                    return users
                }
            }
            #expect(users.count == 1)
            #expect(try await Self.userCount(fixture) == 2)
        }
    }

    @Test func aSecondFactorIsAskedAndADisabledAccountRefused() async throws {
        let upstream = TestIdentityProvider()
        try await upstream.withRunning { issuer in
            var settingUp = try await Self.fixture(issuer: issuer)
            let clock = TestClock(now: Date())
            settingUp.configuration.clock = clock
            let fixture = settingUp
            let (first, second, third) = (
                upstream.token(TestIdentityProvider.claims(issuer: issuer)), upstream.token(TestIdentityProvider.claims(issuer: issuer)),
                upstream.token(TestIdentityProvider.claims(issuer: issuer))
            )
            try await fixture.test { client in
                let (key, _) = try await SecondFactorTests.turnOn(client, "alice", clock: clock)
                let linkToken = try #require(try await IDTokenSignInTests.signIn(client, first).json()["link_token"] as? String)
                let mfa = try #require(try await client.login("alice", Self.password).json()["mfa_token"] as? String)
                clock.advance(by: 30)
                let alice = try Self.accessToken(
                    try await client.sendJSON(.post, "/login/mfa", ["mfa_token": mfa, "code": key.code(at: clock.now)]))
                #expect(try await client.sendJSON(.post, "/me/identities", ["link_token": linkToken], bearer: alice).status == .created)

                let asked = try await IDTokenSignInTests.signIn(client, second)
                #expect(asked.status == .unauthorized)
                #expect(try asked.error().code == "mfa_required")
                clock.advance(by: 30)
                let token = try #require(try asked.json()["mfa_token"] as? String)
                let done = try await client.sendJSON(.post, "/login/mfa", ["mfa_token": token, "code": key.code(at: clock.now)])
                #expect(done.status == .ok)

                _ = try await fixture.withDatabase { database async throws in
                    try await database.client.query("UPDATE users SET disabled_at = now() WHERE username = 'alice'")
                }
                let disabled = try await IDTokenSignInTests.signIn(client, third)
                #expect(disabled.status == .unauthorized)
                #expect(try disabled.error().code == "account_disabled")
            }
        }
    }
}
