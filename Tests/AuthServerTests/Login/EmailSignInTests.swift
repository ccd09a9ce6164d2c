import AuthCore
import AuthPostgres
import AuthServer
import AuthTestSupport
import ContractTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PostgresNIO
import Testing

/// Passwordless sign-in by an emailed code (`POST /login/email`, `/login/email/verify`) and
/// its link's page, through the outbox to a real receiver, on PostgreSQL.
@Suite struct EmailSignInTests {
    static let password = PasswordResetTests.password

    /// A receiver, and the fixture delivering to it with links under a public URL.
    static func withMailbox(_ body: @Sendable (TestMailbox, ServerFixture) async throws -> Void) async throws {
        try await AccountPagesTests.withPages(body)
    }

    /// An account whose address is `email`, verified or not.
    static func addUser(_ fixture: ServerFixture, _ name: String, email: String, verified: Bool = true) async throws {
        let user = try await fixture.addUser(name, password: password)
        let address = try EmailAddress(email)
        _ = try await fixture.withDatabase { database async throws in
            try await database.client.query(
                """
                UPDATE users SET email = \(address.value), email_key = \(address.key),
                                 email_verified_at = CASE WHEN \(verified) THEN now() END
                WHERE id = \(user.id)
                """)
        }
    }

    /// Asks for a code for `email` and returns the message that carries it (past the
    /// owner's notices).
    static func requestCode(_ client: some TestClientProtocol, _ mailbox: TestMailbox, _ email: String) async throws -> TestMailbox.Message
    {
        let asked = try await client.postJSON("/login/email", PasswordResetTests.json(["email": email]))
        #expect(asked.status == .accepted)
        while true {
            let message = try await mailbox.next(within: .seconds(60))
            if message.json["kind"] as? String == "email_sign_in" { return message }
        }
    }

    static func verify(_ client: some TestClientProtocol, _ body: [String: String]) async throws -> TestResponse {
        try await client.postJSON("/login/email/verify", PasswordResetTests.json(body))
    }

    @Test func theCodeAndTheTokenEachSignInOnce() async throws {
        try await Self.withMailbox { mailbox, fixture in
            try await Self.addUser(fixture, "alice", email: "Alice@Example.com")
            try await fixture.test { client async throws in
                let message = try await Self.requestCode(client, mailbox, "alice@example.COM")
                #expect(message.json["kind"] as? String == "email_sign_in")
                #expect(message.json["username"] as? String == "alice")
                #expect(message.json["email"] as? String == "Alice@Example.com")
                let code = try #require(message.json["code"] as? String)
                #expect(code.count == 6 && code.allSatisfy(\.isASCII) && code.allSatisfy(\.isNumber))
                let token = try #require(message.json["token"] as? String)
                #expect(message.json["link"] as? String == "\(AccountPagesTests.publicURL)/login/email/link?token=\(token)")
                let expiresAt = try #require((message.json["expires_at"] as? String).flatMap { try? Date($0, strategy: .iso8601) })
                #expect(abs(expiresAt.timeIntervalSinceNow - 600) < 60)

                let signedIn = try await Self.verify(client, ["email": "ALICE@example.com", "code": code])
                #expect(signedIn.status == .ok)
                #expect(try signedIn.json()["refresh_token"] is String)
                let again = try await Self.verify(client, ["email": "alice@example.com", "code": code])
                #expect(again.status == .unauthorized)
                #expect(try again.error().code == "invalid_credentials")

                // The token (what an app's own link hands over) signs in once, too.
                let second = try await Self.requestCode(client, mailbox, "alice@example.com")
                let secondToken = try #require(second.json["token"] as? String)
                #expect(try await Self.verify(client, ["token": secondToken]).status == .ok)
                let reused = try await Self.verify(client, ["token": secondToken])
                #expect(reused.status == .unauthorized)
                #expect(try reused.error().code == "invalid_token")
                // …and its code went with it.
                #expect(
                    try await Self.verify(client, ["email": "alice@example.com", "code": try #require(second.json["code"] as? String)])
                        .status == .unauthorized)

                for body in [
                    ["email": "alice@example.com"], ["code": "123456"], ["email": "alice@example.com", "code": "12345"],
                    ["email": "alice@example.com", "code": "12345x"], ["email": "x", "code": "123456"],
                    ["email": "alice@example.com", "code": "123456", "token": secondToken],
                ] {
                    let refused = try await Self.verify(client, body)
                    #expect(refused.status == .badRequest, "\(body)")
                    #expect(try refused.error().code == "invalid_request")
                }
            }
            #expect(try await fixture.auditDetails(of: "login_succeeded") == ["email_code", "email_link"])
            #expect(try await fixture.auditKinds().filter { $0 == "email_sign_in_requested" }.count == 2)
            // Stored: the token's digest, no code; the delivered message's sealed token erased.
            let stored = try await PasswordResetTests.count(
                "SELECT count(*)::int8 FROM deliveries WHERE kind = 'email_sign_in' AND sealed_token IS NULL", in: fixture)
            #expect(stored == 2)
        }
    }

    /// The same answer for a verified address, an unverified one, a disabled account's and
    /// one no account has; only the verified one gets a message.
    @Test func onlyAVerifiedAddressGetsACodeAndTheAnswerIsTheSame() async throws {
        try await Self.withMailbox { mailbox, fixture in
            try await Self.addUser(fixture, "bob", email: "bob@example.com")
            try await Self.addUser(fixture, "carol", email: "carol@example.com", verified: false)
            try await fixture.test { client async throws in
                var bodies: [String] = []
                for address in ["nobody@example.com", "carol@example.com", "bob@example.com"] {
                    let response = try await client.postJSON("/login/email", PasswordResetTests.json(["email": address]))
                    #expect(response.status == .accepted)
                    bodies.append(String(buffer: response.body))
                }
                #expect(Set(bodies).count == 1)
                #expect(try await mailbox.next(within: .seconds(60)).json["username"] as? String == "bob")
                // The unverified address has no code to guess.
                #expect(try await Self.verify(client, ["email": "carol@example.com", "code": "000000"]).status == .unauthorized)
            }
            // Every request did its work (one event each), and only bob's queued a message.
            let deadline = ContinuousClock.now + .seconds(60)
            while try await fixture.auditKinds().filter({ $0 == "email_sign_in_requested" }).count < 3, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(try await fixture.auditKinds().filter { $0 == "email_sign_in_requested" }.count == 3)
            #expect(
                try await PasswordResetTests.count("SELECT count(*)::int8 FROM deliveries WHERE kind = 'email_sign_in'", in: fixture) == 1)
        }
    }

    /// Five wrong codes use the code up, even sent all at once; a new request ends the
    /// earlier code.
    @Test func wrongCodesUseTheCodeUpEvenAllAtOnce() async throws {
        try await Self.withMailbox { mailbox, fixture in
            try await Self.addUser(fixture, "dana", email: "dana@example.com")
            try await fixture.test { client async throws in
                let first = try #require(try await Self.requestCode(client, mailbox, "dana@example.com").json["code"] as? String)
                let latest = try await Self.requestCode(client, mailbox, "dana@example.com")
                let code = try #require(latest.json["code"] as? String)
                if first != code {
                    #expect(try await Self.verify(client, ["email": "dana@example.com", "code": first]).status == .unauthorized)
                }
                // That was one wrong try; eight more at once, then the right code: refused.
                let wrong = SecondFactorTests.other(than: code)
                let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                    for _ in 0..<8 {
                        group.addTask { try await Self.verify(client, ["email": "dana@example.com", "code": wrong]).status }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(statuses.allSatisfy { $0 == .unauthorized })
                #expect(try await Self.verify(client, ["email": "dana@example.com", "code": code]).status == .unauthorized)
            }
            let failures = try await fixture.auditDetails(of: "login_failed")
            #expect(failures.filter { $0 == "email_code_used_up" }.count == 1)
            #expect(failures.filter { $0 == "email_code" }.count == (failures.count - 1))
            #expect(try await fixture.auditDetails(of: "login_succeeded").isEmpty)
        }
    }

    /// Requests for one address are limited, whatever the client's address.
    @Test func requestsAreThrottledPerTargetAddress() async throws {
        try await Self.withMailbox { _, fixture in
            var fixture = fixture
            fixture.configuration.throttle.recoveryTargetLimit = 2
            try await fixture.test { client async throws in
                for _ in 0..<2 {
                    #expect(try await client.postJSON("/login/email", #"{"email":"erin@example.com"}"#).status == .accepted)
                }
                let refused = try await client.postJSON("/login/email", #"{"email":"erin@example.com"}"#)
                #expect(refused.status == .tooManyRequests)
                #expect(refused.headers[.retryAfter] != nil)
                #expect(try await client.postJSON("/login/email", #"{"email":"other@example.com"}"#).status == .accepted)
                #expect(try await client.postJSON("/login/email", #"{"email":"not an address"}"#).status == .badRequest)
            }
        }
    }

    /// The code is one factor: an account with an authenticator app is asked for it.
    @Test func anAccountWithASecondFactorIsAskedForIt() async throws {
        try await Self.withMailbox { mailbox, fixture in
            var fixture = fixture
            let clock = TestClock(now: Date(timeIntervalSince1970: 1_700_000_015))
            fixture.configuration.clock = clock
            try await Self.addUser(fixture, "frank", email: "frank@example.com")
            try await fixture.test { client async throws in
                let (key, _) = try await SecondFactorTests.turnOn(client, "frank", clock: clock)
                let code = try #require(try await Self.requestCode(client, mailbox, "frank@example.com").json["code"] as? String)
                let first = try await Self.verify(client, ["email": "frank@example.com", "code": code])
                #expect(first.status == .unauthorized)
                #expect(try first.error().code == "mfa_required")
                let token = try #require(try first.json()["mfa_token"] as? String)
                clock.advance(by: 30)
                let second = try await client.postJSON(
                    "/login/mfa", PasswordResetTests.json(["mfa_token": token, "code": key.code(at: clock.now)]))
                #expect(second.status == .ok)
            }
        }
    }

    /// The link's page: the token moves into the sealed session, the button signs this
    /// browser in (once), and a scanner that only opens the link signs nothing in.
    @Test func theLinksPageSignsTheBrowserInOnce() async throws {
        try await Self.withMailbox { mailbox, fixture in
            try await Self.addUser(fixture, "gina", email: "gina@example.com")
            try await fixture.test { client async throws in
                let message = try await Self.requestCode(client, mailbox, "gina@example.com")
                let token = try #require(message.json["token"] as? String)
                let opened = try await client.execute(uri: "/login/email/link?token=\(token)", method: .get)
                #expect(opened.status == .seeOther)
                #expect(opened.headers[.location] == "/login/email/link")
                let cookie = try AccountPagesTests.cookie(from: opened)
                let page = try await client.execute(uri: "/login/email/link", method: .get, headers: [.cookie: cookie])
                #expect(page.status == .ok)
                let html = String(buffer: page.body)
                #expect(html.contains("gina"))
                #expect(!html.contains(token))
                AccountPagesTests.expectPageHeaders(page, html: html)
                // Opening it again (a scanner) used nothing.
                #expect(try await client.execute(uri: "/login/email/link", method: .get, headers: [.cookie: cookie]).status == .ok)
                let csrf = try AccountPagesTests.csrfToken(in: html)
                let forged = try await client.execute(
                    uri: "/login/email/link", method: .post,
                    headers: AccountPagesTests.formHeaders(cookie: cookie, origin: "https://evil.example"),
                    body: ByteBuffer(string: "csrf=\(csrf)"))
                #expect(forged.status == .forbidden)

                let posted = try await client.execute(
                    uri: "/login/email/link", method: .post, headers: AccountPagesTests.formHeaders(cookie: cookie),
                    body: ByteBuffer(string: "csrf=\(csrf)"))
                #expect(posted.status == .seeOther)
                let signedIn = try AccountPagesTests.cookie(from: posted)
                #expect(signedIn != cookie)
                let done = try await client.execute(uri: "/login/email/link", method: .get, headers: [.cookie: signedIn])
                #expect(done.status == .ok)
                #expect(String(buffer: done.body).contains("gina"))

                // The token is used: the link opened again no longer works.
                let reopened = try await client.execute(uri: "/login/email/link?token=\(token)", method: .get)
                let stale = try await client.execute(
                    uri: "/login/email/link", method: .get, headers: [.cookie: try AccountPagesTests.cookie(from: reopened)])
                #expect(stale.status == .gone)
            }
            #expect(try await fixture.auditDetails(of: "login_succeeded") == ["email_link"])
        }
    }
}
