import AuthCore
import AuthServer
import AuthTestSupport
import ContractTestSupport
import Foundation
import HummingbirdTesting
import Testing

/// `POST /email`: a recent authentication asks for a new address; a token goes to it, the
/// address the account has now is told, and the change is made when the token comes back.
@Suite struct EmailChangeTests {
    static let password = PasswordResetTests.password

    /// The next `count` messages, by kind (whatever order the sender took them in).
    static func messages(_ count: Int, from mailbox: TestMailbox) async throws -> [String: TestMailbox.Message] {
        var byKind: [String: TestMailbox.Message] = [:]
        for _ in 0..<count {
            let message = try await mailbox.next(within: .seconds(60))
            byKind[message.json["kind"] as? String ?? ""] = message
        }
        return byKind
    }

    static func changeEmail(_ client: some TestClientProtocol, to email: String, bearer: String) async throws -> TestResponse {
        try await client.sendJSON(.post, "/email", ["email": email], bearer: bearer)
    }

    static func accessToken(_ client: some TestClientProtocol, _ name: String) async throws -> String {
        try #require(try await client.login(name, password).json()["access_token"] as? String)
    }

    @Test func aChangeGoesToTheNewAddressTellsTheOldOneAndIsMadeByItsToken() async throws {
        try await PasswordResetTests.withMailbox { mailbox, fixture in
            try await fixture.test { client async throws in
                let id = try await OwnerNoticeTests.signUp(client, "eve", email: "eve@example.com", mailbox: mailbox)
                let access = try await Self.accessToken(client, "eve")
                let asked = try await Self.changeEmail(client, to: "Eve.New@example.com", bearer: access)
                #expect(asked.status == .accepted)
                #expect(asked.headers[.cacheControl] == "no-store")

                let sent = try await Self.messages(2, from: mailbox)
                let change = try #require(sent["email_change"])
                #expect(change.json["email"] as? String == "Eve.New@example.com")
                #expect(change.json["user_id"] as? String == id)
                let token = try #require(change.json["token"] as? String)
                try OwnerNoticeTests.expectNotice(
                    try #require(sent["email_change_requested"]), "email_change_requested", userID: id,
                    email: "eve@example.com", now: Date())

                // Nothing changes until the token comes back.
                #expect(
                    try await PasswordResetTests.count("SELECT count(*)::int8 FROM users WHERE email = 'eve@example.com'", in: fixture) == 1
                )
                #expect(try await client.postJSON("/email/verify", PasswordResetTests.json(["token": token])).status == .noContent)
                #expect(try await client.postJSON("/email/verify", PasswordResetTests.json(["token": token])).status == .unauthorized)
                #expect(
                    try await PasswordResetTests.count(
                        "SELECT count(*)::int8 FROM users WHERE email = 'Eve.New@example.com' AND email_key = 'eve.new@example.com' AND email_verified_at IS NOT NULL",
                        in: fixture
                    ) == 1)
                // A reset by the new address reaches it.
                #expect(
                    try await client.postJSON("/password/reset", PasswordResetTests.json(["email": "eve.new@EXAMPLE.com"])).status
                        == .accepted)
                let reset = try await mailbox.next(within: .seconds(60))
                #expect(reset.json["kind"] as? String == "password_reset")
                #expect(reset.json["email"] as? String == "Eve.New@example.com")
                let kinds = try await fixture.auditKinds()
                #expect(kinds.contains("email_change_requested") && kinds.contains("email_changed"))
            }
        }
    }

    /// A change to an address another account has is answered the same; that account is
    /// told, no token is made, and the asking account is told as for any change.
    @Test func aChangeToATakenAddressAnswersTheSameAndTellsItsHolder() async throws {
        try await PasswordResetTests.withMailbox { mailbox, fixture in
            try await fixture.test { client async throws in
                let halID = try await OwnerNoticeTests.signUp(client, "hal", email: "hal@example.com", mailbox: mailbox)
                let eveID = try await OwnerNoticeTests.signUp(client, "eve", email: "eve@example.com", mailbox: mailbox)
                let access = try await Self.accessToken(client, "eve")
                let free = try await Self.changeEmail(client, to: "free@example.com", bearer: access)
                _ = try await Self.messages(2, from: mailbox)
                let taken = try await Self.changeEmail(client, to: "HAL@example.com", bearer: access)
                #expect(taken.status == free.status)
                #expect(String(buffer: taken.body) == String(buffer: free.body))

                let sent = try await Self.messages(2, from: mailbox)
                try OwnerNoticeTests.expectNotice(
                    try #require(sent["account_already_exists"]), "account_already_exists", userID: halID,
                    email: "hal@example.com", now: Date())
                try OwnerNoticeTests.expectNotice(
                    try #require(sent["email_change_requested"]), "email_change_requested", userID: eveID,
                    email: "eve@example.com", now: Date())
                #expect(
                    try await PasswordResetTests.count(
                        "SELECT count(*)::int8 FROM account_tokens WHERE purpose = 'email_change' AND email_key = 'hal@example.com'",
                        in: fixture
                    ) == 0)
                // Malformed: a 400, nothing sent.
                #expect(try await Self.changeEmail(client, to: "not an address", bearer: access).status == .badRequest)
            }
        }
    }

    /// A password set after a change was asked voids its token: a thief who asked for their
    /// own address loses it when the owner resets or changes the password.
    @Test func aPasswordSetVoidsAChangeAskedBeforeIt() async throws {
        try await PasswordResetTests.withMailbox { mailbox, fixture in
            try await fixture.test { client async throws in
                _ = try await OwnerNoticeTests.signUp(client, "eve", email: "eve@example.com", mailbox: mailbox)
                let access = try await Self.accessToken(client, "eve")
                #expect(try await Self.changeEmail(client, to: "thief@example.com", bearer: access).status == .accepted)
                let token = try #require(try await Self.messages(2, from: mailbox)["email_change"]?.json["token"] as? String)
                let changed = try await client.sendJSON(
                    .post, "/password", ["current_password": Self.password, "new_password": "the owner's new passphrase"], bearer: access
                )
                #expect(changed.status == .ok)
                #expect(try await client.postJSON("/email/verify", PasswordResetTests.json(["token": token])).status == .unauthorized)
                #expect(
                    try await PasswordResetTests.count("SELECT count(*)::int8 FROM users WHERE email = 'eve@example.com'", in: fixture) == 1
                )
            }
        }
    }

    /// Changing the address needs an authentication within 5 minutes (RFC 9470).
    @Test func aChangeNeedsARecentLogin() async throws {
        let clock = TestClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        try await PasswordResetTests.withMailbox(clock: clock) { _, fixture in
            try await fixture.addUser("eve", password: Self.password)
            try await fixture.test { client async throws in
                let access = try await Self.accessToken(client, "eve")
                clock.advance(by: 301)
                let stale = try await Self.changeEmail(client, to: "eve@example.com", bearer: access)
                #expect(stale.status == .unauthorized)
                #expect(try stale.error().code == "insufficient_user_authentication")
                #expect(stale.headers[.wwwAuthenticate]?.contains("max_age=300") == true)
            }
        }
    }
}
