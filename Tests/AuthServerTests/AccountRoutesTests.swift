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

/// What an account's owner does over HTTP: sign up, change the password, delete the
/// account; on PostgreSQL.
@Suite struct AccountRoutesTests {
    static let password = "correct horse battery staple"
    static let newPassword = "a whole new passphrase"

    @Test func signUpIsClosedByDefault() async throws {
        let fixture = try await ServerFixture()
        try await fixture.test { client async throws in
            let response = try await client.postJSON("/users", #"{"username":"eve","password":"correct horse battery staple"}"#)
            #expect(response.status == .notFound)
            #expect(try response.error().code == "not_found")
        }
    }

    @Test func anOpenSignUpCreatesAnAccountThatLogsIn() async throws {
        var fixture = try await ServerFixture()
        fixture.configuration.signUpOpen = true
        try await fixture.test { client async throws in
            let created = try await client.postJSON("/users", #"{"username":"Erin","password":"correct horse battery staple"}"#)
            #expect(created.status == .created)
            let body = try created.json()
            #expect(body["username"] as? String == "Erin")
            #expect((body["user_id"] as? String).flatMap(UUID.init(uuidString:)) != nil)
            #expect(body["created_at"] is String)
            #expect(Set(body.keys) == ["user_id", "username", "created_at"])
            #expect(try await client.login("erin", Self.password).status == .ok)

            let taken = try await client.postJSON("/users", #"{"username":"ERIN","password":"another fine passphrase"}"#)
            #expect(taken.status == .conflict)
            #expect(try taken.error().code == "username_taken")
            let weak = try await client.postJSON("/users", #"{"username":"frank","password":"qwertyuiop"}"#)
            #expect(weak.status == .unprocessableContent)
            #expect(try weak.error().code == "weak_password")
            #expect(try !weak.error().description.contains("qwertyuiop"))
            let extra = try await client.postJSON("/users", #"{"username":"gus","password":"correct horse battery staple","admin":true}"#)
            #expect(extra.status == .badRequest)
            #expect(try await client.login("frank", "qwertyuiop").status == .unauthorized)
        }
        #expect(try await fixture.auditKinds().filter { $0 == "user_created" }.count == 1)
    }

    /// Names are compared after width mapping and new ones refuse invisible characters, at
    /// sign-up and login alike: a look-alike of a name is taken, a fullwidth login finds the
    /// account.
    @Test func lookAlikeNamesAreTakenOrRefused() async throws {
        var fixture = try await ServerFixture()
        fixture.configuration.signUpOpen = true
        try await fixture.addUser("alice", password: Self.password)
        try await fixture.test { client async throws in
            func signUp(_ name: String) async throws -> TestResponse {
                let body = try JSONSerialization.data(withJSONObject: ["username": name, "password": "another fine passphrase"])
                return try await client.postJSON("/users", String(decoding: body, as: UTF8.self))
            }
            #expect(try await signUp("ａｌｉｃｅ").error().code == "username_taken")
            #expect(try await signUp("ＡＬＩＣＥ").error().code == "username_taken")
            for invisible in ["ali\u{200B}ce", "alice\u{202E}", "\u{FEFF}alice", "ﬁona"] {
                let refused = try await signUp(invisible)
                #expect(refused.status == .badRequest)
                #expect(try refused.error().description.hasPrefix("username must not contain"))
            }
            #expect(try await client.login("ａｌｉｃｅ", Self.password).status == .ok)
            #expect(try await client.login("ali\u{200B}ce", Self.password).status == .unauthorized)
        }
    }

    /// Sign-ups from one address are limited (every one counts, created or not); another
    /// address still signs up.
    @Test func signUpsAreThrottledPerAddress() async throws {
        var fixture = try await ServerFixture()
        fixture.configuration.port = 0
        fixture.configuration.signUpOpen = true
        fixture.configuration.trustedProxies = try TrustedProxies(["127.0.0.0/8", "::1/128"])
        fixture.configuration.throttle.signupLimit = 2
        let app = try await fixture.application()
        try await app.test(.live) { client async throws in
            for name in ["h1", "h2"] {
                #expect(try await client.signUp(name, from: "203.0.113.5").status == .created)
            }
            let refused = try await client.signUp("h3", from: "203.0.113.5")
            #expect(refused.status == .tooManyRequests)
            #expect(try refused.error().code == "too_many_attempts")
            #expect(refused.headers[.retryAfter] != nil)
            #expect(try await client.signUp("h4", from: "198.51.100.5").status == .created)
        }
    }

    /// The current password is checked like a login's; then every session of the account
    /// ends, the answer is a new pair that works, and only the new password logs in.
    @Test func aPasswordChangeEndsTheOtherSessionsAndAnswersANewPair() async throws {
        let fixture = try await ServerFixture()
        try await fixture.addUser("carol", password: Self.password)
        try await fixture.test { client async throws in
            let here = try await client.login("carol", Self.password).json()
            let elsewhere = try await client.login("carol", Self.password).json()
            let access = try #require(here["access_token"] as? String)

            let wrong = try await client.changePassword(access, current: "not my password", new: Self.newPassword)
            #expect(wrong.status == .unauthorized)
            #expect(try wrong.error().code == "invalid_credentials")
            let weak = try await client.changePassword(access, current: Self.password, new: "12345678")
            #expect(weak.status == .unprocessableContent)
            #expect(try await client.changePassword("not.a.token", current: Self.password, new: Self.newPassword).status == .unauthorized)

            let changed = try await client.changePassword(access, current: Self.password, new: Self.newPassword)
            #expect(changed.status == .ok)
            let pair = try changed.json()
            for old in [here, elsewhere] {
                #expect(try await client.refresh(try #require(old["refresh_token"] as? String)).status == .unauthorized)
            }
            #expect(try await client.refresh(try #require(pair["refresh_token"] as? String)).status == .ok)
            #expect(try await client.me(try #require(pair["access_token"] as? String)).status == .ok)
            #expect(try await client.login("carol", Self.password).status == .unauthorized)
            #expect(try await client.login("carol", Self.newPassword).status == .ok)
        }
        let kinds = try await fixture.auditKinds()
        #expect(kinds.contains("password_set") && kinds.contains("sessions_revoked"))
    }

    /// A stolen access token does not give unlimited guesses at the current password: the
    /// re-authentication has a counter of its own per account (reserved before hashing),
    /// which locks no login out, and which the owner's successful login clears.
    @Test func guessingTheCurrentPasswordIsThrottled() async throws {
        var fixture = try await ServerFixture()
        let pool = BlockingWorkPool(width: 2, queueLimit: 64)
        fixture.configuration.hashingPool = pool
        fixture.configuration.throttle = ThrottlePolicy(pairLimit: 3, accountLimit: 50, addressLimit: 100, window: 600)
        try await fixture.addUser("dora", password: Self.password)
        try await fixture.test { client async throws in
            let access = try #require(try await client.login("dora", Self.password).json()["access_token"] as? String)
            for guess in 0..<3 {
                #expect(try await client.changePassword(access, current: "guess \(guess)", new: Self.newPassword).status == .unauthorized)
            }
            let before = await pool.load().completed
            let throttled = try await client.changePassword(access, current: Self.password, new: Self.newPassword)
            #expect(throttled.status == .tooManyRequests)
            #expect(throttled.headers[.retryAfter] != nil)
            #expect(try await client.deleteMe(access, password: Self.password).status == .tooManyRequests)
            #expect(await pool.load().completed == before, "a refused re-authentication hashes nothing")

            // The owner's login is not locked out, and clears the counter.
            #expect(try await client.login("dora", Self.password).status == .ok)
            #expect(try await client.changePassword(access, current: Self.password, new: Self.newPassword).status == .ok)
        }
    }

    /// Deletion asks for the password; then the account, its sessions and its name are
    /// gone, and the audit log keeps the account's events under its id only.
    @Test func deletingTheAccountNeedsThePasswordAndLeavesOnlyItsID() async throws {
        let fixture = try await ServerFixture()
        let ivan = try await fixture.addUser("ivan", password: Self.password)
        try await fixture.test { client async throws in
            let grant = try await client.login("ivan", Self.password).json()
            let access = try #require(grant["access_token"] as? String)
            #expect(try await client.deleteMe(access, password: "not my password").status == .unauthorized)
            #expect(try await client.me(access).status == .ok)

            let deleted = try await client.deleteMe(access, password: Self.password)
            #expect(deleted.status == .noContent)
            #expect(try await client.login("ivan", Self.password).status == .unauthorized)
            #expect(try await client.refresh(try #require(grant["refresh_token"] as? String)).status == .unauthorized)
            #expect(try await client.me(access).status == .unauthorized)
        }
        let events = try await fixture.withDatabase { database async throws in
            var events: [(String, UUID?, String?)] = []
            for try await row in try await database.client.query("SELECT kind, user_id, username_key FROM audit_events ORDER BY id").decode(
                (String, UUID?, String?).self)
            {
                events.append(row)
            }
            return events
        }
        // The account's events (the login after the deletion names no account: no id).
        let accounts = events.filter { $0.1 != nil }
        #expect(accounts.map(\.0) == ["login_succeeded", "login_failed", "user_deleted"])
        #expect(accounts.allSatisfy { $0.1 == ivan.id && $0.2 == nil })
        #expect(events.allSatisfy { $0.2 == nil })
    }
}

extension TestClientProtocol {
    /// POSTs /password with a bearer token.
    func changePassword(_ access: String, current: String, new: String) async throws -> TestResponse {
        let body = try JSONSerialization.data(withJSONObject: ["current_password": current, "new_password": new])
        return try await execute(
            uri: "/password", method: .post, headers: [.authorization: "Bearer \(access)", .contentType: "application/json"],
            body: ByteBuffer(bytes: body)
        )
    }

    /// DELETEs /me with a bearer token and the password.
    func deleteMe(_ access: String, password: String) async throws -> TestResponse {
        let body = try JSONSerialization.data(withJSONObject: ["password": password])
        return try await execute(
            uri: "/me", method: .delete, headers: [.authorization: "Bearer \(access)", .contentType: "application/json"],
            body: ByteBuffer(bytes: body)
        )
    }

    /// Signs up `username` as if from `address`, through a trusted proxy's `X-Forwarded-For`.
    func signUp(_ username: String, from address: String) async throws -> TestResponse {
        try await postJSON("/users", #"{"username":"\#(username)","password":"correct horse battery staple"}"#, from: address)
    }
}
