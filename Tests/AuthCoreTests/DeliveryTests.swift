import AuthCore
import AuthPostgres
import AuthTestSupport
import Crypto
import Foundation
import Testing

/// The pieces of out-of-band delivery: the signature a receiver checks, the sealing of
/// queued tokens, the backoff, the wake, and the recovery rules on PostgreSQL.
@Suite struct DeliveryTests {
    let secret = SymmetricKey(data: Data("a shared secret of the mailer".utf8))
    let body = Data(#"{"kind":"password_reset","token":"abc"}"#.utf8)
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func theSignatureIsStripesSchemeAndARecipientChecksIt() throws {
        let header = DeliverySignature.header(for: body, secret: secret, at: now)
        let expected = HMAC<SHA256>.authenticationCode(for: Data("1800000000.".utf8) + body, using: secret)
        #expect(header == "t=1800000000,v1=" + expected.map { String(format: "%02x", $0) }.joined())
        try DeliverySignature.verify(header, body: body, secret: secret, now: now.addingTimeInterval(60))

        #expect(throws: DeliverySignatureError.mismatch) {
            try DeliverySignature.verify(header, body: body + Data(" ".utf8), secret: secret, now: now)
        }
        #expect(throws: DeliverySignatureError.mismatch) {
            try DeliverySignature.verify(header, body: body, secret: SymmetricKey(data: Data("another secret entirely".utf8)), now: now)
        }
        #expect(throws: DeliverySignatureError.stale) {
            try DeliverySignature.verify(header, body: body, secret: secret, now: now.addingTimeInterval(301))
        }
        #expect(throws: DeliverySignatureError.malformed) {
            try DeliverySignature.verify("v1=00", body: body, secret: secret, now: now)
        }
    }

    @Test func aQueuedTokenOpensOnlyUnderItsKeyAndKind() throws {
        let kek = KeyEncryptionKey.generate()
        let sealer = DeliverySealer(keyEncryptionKey: kek)
        let sealed = try sealer.seal("the token", purpose: .passwordReset)
        #expect(sealed.range(of: Data("the token".utf8)) == nil)
        #expect(try sealer.open(sealed, purpose: .passwordReset) == "the token")
        #expect(throws: DeliverySealerError.self) { try sealer.open(sealed, purpose: .emailVerification) }
        #expect(throws: DeliverySealerError.self) {
            try DeliverySealer(keyEncryptionKey: .generate()).open(sealed, purpose: .passwordReset)
        }
    }

    @Test func retriesBackOffDoublingWithJitterUpToTheMaximum() {
        let policy = DeliveryPolicy()
        for (attempts, full) in [(1, 1.0), (2, 2.0), (4, 8.0), (9, 256.0), (10, 300.0), (1_000, 300.0)] {
            let wait = policy.backoff(afterAttempts: attempts)
            #expect(wait <= full && wait >= full * 0.8, "after \(attempts): \(wait)")
        }
    }

    @Test func aWakeReturnsAtOnceWhenSignalledAndAfterItsTimeOtherwise() async {
        let wake = DeliveryWake()
        wake.signal()
        let clock = ContinuousClock()
        // A pending signal returns at once, long before the wait's time (a loaded suite
        // may take seconds to resume the task, never a minute).
        let signalled = await clock.measure { await wake.wait(atMost: .seconds(120)) }
        #expect(signalled < .seconds(60))
        let idle = await clock.measure { await wake.wait(atMost: .milliseconds(200)) }
        #expect(idle >= .milliseconds(200))
        Task {
            try await Task.sleep(for: .milliseconds(100))
            wake.signal()
        }
        // The signalling task, too, may wait for a thread while the whole suite runs.
        let woken = await clock.measure { await wake.wait(atMost: .seconds(120)) }
        #expect(woken < .seconds(60))
    }

    @Test func emailAddressesAreCheckedPlainlyAndComparedWithoutCase() throws {
        let address = try EmailAddress("Alice@Example.com")
        #expect(address.key == "alice@example.com")
        for bad in [
            "", "alice", "alice@", "@example.com", "alice@example", "a b@example.com", "alice@@example.com", "alice@example.com.",
            String(repeating: "a", count: 65) + "@example.com",
        ] {
            #expect(throws: AuthError.self, "\(bad)") { try EmailAddress(bad) }
        }
    }

    /// The rules without the routes: a request for an unknown account writes what a known
    /// one's does (the audit event), but queues nothing; the message queued for a known one
    /// holds the token sealed, and the token works once.
    @Test func aResetForAnUnknownAccountQueuesNothingAndAKnownOnesTokenWorksOnce() async throws {
        try await TestCluster.withStorage { storage in
            let kek = KeyEncryptionKey.generate()
            let hashing = PasswordHashing(hasher: Argon2idHasher(parameters: .testLight), pool: BlockingWorkPool(width: 1, queueLimit: 4))
            let clock = TestClock(now: now)
            let accounts = AccountService(storage: storage, hashing: hashing, clock: clock)
            let recovery = AccountRecoveryService(
                storage: storage, hashing: hashing, sealer: DeliverySealer(keyEncryptionKey: kek), clock: clock)
            let origin = RequestOrigin(clientAddress: "192.0.2.7", requestID: "r1")
            let alice = try await accounts.create(username: "alice", password: "correct horse battery staple", email: "alice@example.com")

            try await recovery.requestPasswordReset(username: "nobody", email: nil, origin: origin)
            #expect(try await storage.outbox.pendingCount() == 0)
            try await recovery.requestPasswordReset(username: nil, email: "ALICE@example.com", origin: origin)
            let requested = try await storage.auditEvents().filter { $0.kind == .passwordResetRequested }
            // Both recorded; only the one for an account names it, and "nobody" is kept nowhere.
            #expect(requested.map(\.userID) == [nil, alice.id])
            #expect(requested.map(\.usernameKey) == [nil, "alice"])

            let queued = try #require(try await storage.outbox.claim(limit: 10, now: now, leaseUntil: now.addingTimeInterval(30)).first)
            #expect(queued.userID == alice.id)
            #expect(queued.email == "alice@example.com")
            let token = try DeliverySealer(keyEncryptionKey: kek).open(try #require(queued.sealedToken), purpose: .passwordReset)

            let user = try await recovery.resetPassword(token: token, newPassword: "a whole new passphrase", origin: origin)
            #expect(Argon2idHasher().verify("a whole new passphrase", against: user.passwordHash))
            await #expect(throws: AuthError.invalidToken) {
                try await recovery.resetPassword(token: token, newPassword: "yet another passphrase", origin: origin)
            }
        }
    }
}
