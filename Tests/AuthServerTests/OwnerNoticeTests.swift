import AuthCore
import AuthServer
import AuthTestSupport
import ContractKit
import ContractTestSupport
import Crypto
import Foundation
import HummingbirdTesting
import Testing
import WebAuthn

/// What the owner of an account is told through the delivery URL without having asked:
/// a second factor or a passkey added, a sign-up with the account's address. Each is a
/// signed message without a token, to a real receiver.
@Suite struct OwnerNoticeTests {
    static let password = PasswordResetTests.password

    /// Signs `name` up with `email` and takes the verification message the sign-up sends.
    static func signUp(_ client: some TestClientProtocol, _ name: String, email: String, mailbox: TestMailbox) async throws -> String {
        let created = try await client.postJSON(
            "/users", PasswordResetTests.json(["username": name, "password": password, "email": email]))
        #expect(created.status == .created)
        let verification = try await mailbox.next(within: .seconds(60))
        #expect(verification.json["kind"] as? String == "email_verification")
        return try #require(try created.json()["user_id"] as? String)
    }

    /// Checks `message` is a signed notice of `kind` for `userID` at `email`, without a token.
    static func expectNotice(_ message: TestMailbox.Message, _ kind: String, userID: String, email: String, now: Date) throws {
        try DeliverySignature.verify(
            try #require(message.headers["authd-signature"]), body: message.body,
            secret: SymmetricKey(data: Data(PasswordResetTests.secret.utf8)), now: now
        )
        #expect(message.json["kind"] as? String == kind)
        #expect(message.json["user_id"] as? String == userID)
        #expect(message.json["email"] as? String == email)
        #expect(message.json["token"] is NSNull)
        #expect(message.json["expires_at"] is NSNull)
        #expect(message.json["delivery_id"] as? String == message.headers["authd-delivery-id"])
    }

    @Test func turningOnTOTPTellsTheOwner() async throws {
        let clock = TestClock(now: Date(timeIntervalSince1970: 1_700_000_015))
        try await PasswordResetTests.withMailbox(clock: clock) { mailbox, fixture in
            try await fixture.test { client async throws in
                let id = try await Self.signUp(client, "tia", email: "tia@example.com", mailbox: mailbox)
                _ = try await SecondFactorTests.turnOn(client, "tia", clock: clock)
                try Self.expectNotice(
                    try await mailbox.next(within: .seconds(60)), "totp_enabled", userID: id, email: "tia@example.com", now: clock.now)
            }
        }
    }

    @Test func registeringAPasskeyTellsTheOwner() async throws {
        try await PasswordResetTests.withMailbox { mailbox, fixture in
            var fixture = fixture
            fixture.configuration.passkeys = try await PasskeyTests.fixture().configuration.passkeys
            try await fixture.test { client async throws in
                let id = try await Self.signUp(client, "pia", email: "pia@example.com", mailbox: mailbox)
                var phone = SoftwareAuthenticator(origin: PasskeyTests.origin)
                try await PasskeyTests.register(client, "pia", &phone)
                try Self.expectNotice(
                    try await mailbox.next(within: .seconds(60)), "passkey_added", userID: id, email: "pia@example.com", now: Date())
            }
        }
    }

    /// A sign-up with an address another account holds is answered as any sign-up; the
    /// account is made without the address, and the holder is told instead.
    @Test func aSignUpWithATakenAddressAnswersTheSameAndTellsItsHolder() async throws {
        try await PasswordResetTests.withMailbox { mailbox, fixture in
            try await fixture.test { client async throws in
                let halID = try await Self.signUp(client, "hal", email: "hal@example.com", mailbox: mailbox)
                let fresh = try await client.postJSON(
                    "/users", PasswordResetTests.json(["username": "gus", "password": Self.password, "email": "gus@example.com"]))
                let taken = try await client.postJSON(
                    "/users", PasswordResetTests.json(["username": "ian", "password": Self.password, "email": "HAL@example.com"]))
                #expect(taken.status == fresh.status)
                #expect(try taken.json().keys.sorted() == fresh.json().keys.sorted())
                let ianID = try #require(try taken.json()["user_id"] as? String)
                #expect(try await client.login("ian", Self.password).status == .ok)

                // gus's verification and hal's notice, in either order; nothing for ian.
                let messages = [try await mailbox.next(within: .seconds(60)), try await mailbox.next(within: .seconds(60))]
                let notice = try #require(messages.first { $0.json["kind"] as? String == "account_already_exists" })
                try Self.expectNotice(notice, "account_already_exists", userID: halID, email: "hal@example.com", now: Date())
                #expect(messages.contains { $0.json["kind"] as? String == "email_verification" && $0.json["username"] as? String == "gus" })
                #expect(
                    try await PasswordResetTests.count(
                        "SELECT count(*)::int8 FROM deliveries WHERE user_id = \(UUID(uuidString: ianID)!)", in: fixture) == 0)
                #expect(
                    try await PasswordResetTests.count(
                        "SELECT count(*)::int8 FROM users WHERE username = 'ian' AND email IS NULL", in: fixture) == 1)

                // A taken name is refused whatever the address, as it is with a free one.
                for email in ["hal@example.com", "new@example.com"] {
                    let both = try await client.postJSON(
                        "/users", PasswordResetTests.json(["username": "HAL", "password": Self.password, "email": email]))
                    #expect(both.status == .conflict)
                    #expect(try both.error().code == "username_taken")
                }
            }
        }
    }
}
