import AsyncHTTPClient
import AuthCore
import AuthPostgres
import AuthServer
import AuthTestSupport
import ContractTestSupport
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PostgresNIO
import Testing

/// Password reset and email verification through the outbox, on PostgreSQL, with a real
/// receiver at the delivery URL.
@Suite struct PasswordResetTests {
    static let password = "correct horse battery staple"
    static let newPassword = "a whole new passphrase"
    static let secret = "a shared secret of the mailer"

    /// The fixture with sign-up open and deliveries to `base`.
    static func fixture(deliveringTo base: String, clock: TestClock? = nil) async throws -> ServerFixture {
        var fixture = try await ServerFixture()
        fixture.configuration.signUpOpen = true
        var delivery = try DeliveryConfiguration(url: "\(base)/deliveries", secret: Data(secret.utf8))
        delivery.policy.firstBackoff = 0.2
        delivery.policy.pollInterval = .milliseconds(100)
        fixture.configuration.delivery = delivery
        if let clock { fixture.configuration.clock = clock }
        return fixture
    }

    /// A receiver at a live delivery URL, and the fixture (sign-up open, ``fixture(deliveringTo:clock:)``)
    /// delivering to it.
    static func withMailbox(clock: TestClock? = nil, _ body: @Sendable (TestMailbox, ServerFixture) async throws -> Void) async throws {
        let mailbox = TestMailbox()
        try await EphemeralServer.withRunning(mailbox.router()) { base in
            try await body(mailbox, try await fixture(deliveringTo: base, clock: clock))
        }
    }

    static func json(_ object: [String: String]) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data(), as: UTF8.self)
    }

    @Test func aResetIsDeliveredSignedAndSetsANewPasswordOnce() async throws {
        try await Self.withMailbox { mailbox, fixture in
            try await fixture.test { client async throws in
                let created = try await client.postJSON(
                    "/users", Self.json(["username": "alice", "password": Self.password, "email": "Alice@Example.com"])
                )
                #expect(created.status == .created)

                // The sign-up's verification message: signed, for the address given.
                let verification = try await mailbox.next(within: .seconds(60))
                try DeliverySignature.verify(
                    try #require(verification.headers["authd-signature"]), body: verification.body,
                    secret: SymmetricKey(data: Data(Self.secret.utf8)), now: Date()
                )
                #expect(verification.json["kind"] as? String == "email_verification")
                #expect(verification.json["email"] as? String == "Alice@Example.com")
                let verifyToken = try #require(verification.json["token"] as? String)
                #expect(try await client.postJSON("/email/verify", Self.json(["token": verifyToken])).status == .noContent)
                let again = try await client.postJSON("/email/verify", Self.json(["token": verifyToken]))
                #expect(again.status == .unauthorized)
                #expect(try again.error().code == "invalid_token")

                let login = try await client.login("alice", Self.password).json()
                let oldRefresh = try #require(login["refresh_token"] as? String)

                // Asked by email, in another case: 202, then the message.
                let asked = try await client.postJSON("/password/reset", Self.json(["email": "ALICE@example.com"]))
                #expect(asked.status == .accepted)
                let reset = try await mailbox.next(within: .seconds(60))
                #expect(reset.json["kind"] as? String == "password_reset")
                #expect(reset.json["username"] as? String == "alice")
                #expect(reset.json["user_id"] as? String == (try created.json()["user_id"] as? String))
                #expect(reset.headers["authd-delivery-id"] != nil)
                let expiresAt = try #require((reset.json["expires_at"] as? String).flatMap { try? Date($0, strategy: .iso8601) })
                #expect(abs(expiresAt.timeIntervalSinceNow - 1_800) < 60)
                let token = try #require(reset.json["token"] as? String)
                #expect(token.count == 43)

                // A weak password is refused and the token still works.
                let weak = try await client.postJSON("/password/reset/confirm", Self.json(["token": token, "new_password": "qwertyuiop"]))
                #expect(weak.status == .unprocessableContent)
                let confirmed = try await client.postJSON(
                    "/password/reset/confirm", Self.json(["token": token, "new_password": Self.newPassword]))
                #expect(confirmed.status == .noContent)
                let reused = try await client.postJSON(
                    "/password/reset/confirm", Self.json(["token": token, "new_password": "yet another passphrase"]))
                #expect(reused.status == .unauthorized)
                #expect(try reused.error().code == "invalid_token")

                #expect(try await client.postJSON("/token/refresh", Self.json(["refresh_token": oldRefresh])).status == .unauthorized)
                #expect(try await client.login("alice", Self.password).status == .unauthorized)
                #expect(try await client.login("alice", Self.newPassword).status == .ok)

                let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
                #expect(metrics.contains(#"authd_deliveries_total{kind="password_reset",outcome="delivered"} 1"#))
                #expect(metrics.contains(#"authd_deliveries_total{kind="email_verification",outcome="delivered"} 1"#))
                #expect(metrics.contains(#"authd_account_recovery_total{result="reset"} 1"#))
                #expect(metrics.contains(#"route="/password/reset/confirm""#))
            }
            let kinds = try await fixture.auditKinds()
            #expect(kinds.contains("email_verified"))
            #expect(kinds.contains("password_reset_requested"))
            #expect(kinds.contains("password_reset"))
            // Stored: the token's digest only; the delivered message's sealed token erased.
            let rows = try await fixture.withDatabase { database async throws in
                var rows: [(String, Bool)] = []
                for try await row in try await database.client.query(
                    "SELECT kind, sealed_token IS NULL FROM deliveries WHERE delivered_at IS NOT NULL ORDER BY id"
                ).decode((String, Bool).self) {
                    rows.append(row)
                }
                return rows
            }
            #expect(rows.map(\.0) == ["email_verification", "password_reset"])
            #expect(rows.allSatisfy { $0.1 })
        }
    }

    /// The same answer, body and all, for an account that exists, one that does not, and a
    /// disabled one; only the first gets a message.
    @Test func unknownAndDisabledAccountsGetTheSameAnswerAndNoMessage() async throws {
        try await Self.withMailbox { mailbox, fixture in
            try await fixture.addUser("bob", password: Self.password)
            try await fixture.addUser("carol", password: Self.password, disabled: true)
            try await fixture.test { client async throws in
                var bodies: [String] = []
                for name in ["nobody", "carol", "bob"] {
                    let response = try await client.postJSON("/password/reset", Self.json(["username": name]))
                    #expect(response.status == .accepted)
                    bodies.append(String(buffer: response.body))
                }
                #expect(Set(bodies).count == 1)
                let message = try await mailbox.next(within: .seconds(60))
                #expect(message.json["username"] as? String == "bob")
                // A reset asked by username for an account without an address still goes out.
                #expect(message.json["email"] is NSNull)
                try await Task.sleep(for: .milliseconds(500))
                #expect(mailbox.distinctMessages.count == 1)

                let both = try await client.postJSON("/password/reset", Self.json(["username": "bob", "email": "bob@example.com"]))
                #expect(both.status == .badRequest)
                let neither = try await client.postJSON("/password/reset", "{}")
                #expect(neither.status == .badRequest)
                let unknownToken = try await client.postJSON(
                    "/password/reset/confirm", Self.json(["token": "x", "new_password": Self.newPassword]))
                #expect(unknownToken.status == .unauthorized)
            }
        }
    }

    /// Requests for one name are limited whether or not it is an account's, and requests
    /// from one address over every name.
    @Test func resetRequestsAreThrottledPerTargetAndPerAddress() async throws {
        try await Self.withMailbox { mailbox, fixture in
            var fixture = fixture
            fixture.configuration.port = 0
            fixture.configuration.trustedProxies = try TrustedProxies(["127.0.0.0/8", "::1/128"])
            fixture.configuration.throttle.recoveryTargetLimit = 2
            fixture.configuration.throttle.recoveryLimit = 4
            try await fixture.addUser("dave", password: Self.password)
            let app = try await fixture.application()
            try await app.test(.live) { client async throws in
                // From two addresses: the name's limit is over all of them.
                for name in ["dave", "nobody"] {
                    #expect(
                        try await client.postJSON("/password/reset", Self.json(["username": name]), from: "203.0.113.7").status == .accepted
                    )
                    #expect(
                        try await client.postJSON("/password/reset", Self.json(["username": name]), from: "198.51.100.7").status
                            == .accepted)
                    let third = try await client.postJSON("/password/reset", Self.json(["username": name]), from: "192.0.2.7")
                    #expect(third.status == .tooManyRequests)
                    #expect(third.headers[.retryAfter] != nil)
                }
                for name in ["p1", "p2", "p3", "p4"] {
                    #expect(
                        try await client.postJSON("/password/reset", Self.json(["username": name]), from: "203.0.113.8").status == .accepted
                    )
                }
                let fifth = try await client.postJSON("/password/reset", Self.json(["username": "p5"]), from: "203.0.113.8")
                #expect(fifth.status == .tooManyRequests)
                #expect(
                    try await client.postJSON("/password/reset", Self.json(["username": "p5"]), from: "198.51.100.8").status == .accepted)
            }
            #expect(mailbox.distinctMessages.count <= 2)
        }
    }

    /// A reset ends the owner's lockout: the username's count from every address and from
    /// the address the reset was confirmed from. A password change ends the reset links
    /// issued before it.
    @Test func aResetEndsTheLockoutAtItsAddressAndAChangeEndsOutstandingLinks() async throws {
        try await Self.withMailbox { mailbox, fixture in
            var fixture = fixture
            fixture.configuration.port = 0
            fixture.configuration.trustedProxies = try TrustedProxies(["127.0.0.0/8", "::1/128"])
            fixture.configuration.throttle.pairLimit = 3
            try await fixture.addUser("gwen", password: Self.password)
            try await fixture.application().test(.live) { client async throws in
                let home = "203.0.113.9"
                for _ in 0..<3 { #expect(try await client.login("gwen", "not the password", from: home).status == .unauthorized) }
                #expect(try await client.login("gwen", Self.password, from: home).status == .tooManyRequests)
                #expect(try await client.postJSON("/password/reset", Self.json(["username": "gwen"]), from: home).status == .accepted)
                let token = try #require(try await mailbox.next(within: .seconds(60)).json["token"] as? String)
                let confirmed = try await client.postJSON(
                    "/password/reset/confirm", Self.json(["token": token, "new_password": Self.newPassword]), from: home)
                #expect(confirmed.status == .noContent)
                let login = try await client.login("gwen", Self.newPassword, from: home)
                #expect(login.status == .ok)

                // A link asked for, then the password changed by its owner: the link is dead.
                #expect(try await client.postJSON("/password/reset", Self.json(["username": "gwen"]), from: home).status == .accepted)
                let stale = try #require(try await mailbox.next(within: .seconds(60)).json["token"] as? String)
                let access = try #require(try login.json()["access_token"] as? String)
                let changed = try await client.sendJSON(
                    .post, "/password", ["current_password": Self.newPassword, "new_password": "yet another passphrase"], bearer: access
                )
                #expect(changed.status == .ok)
                let late = try await client.postJSON(
                    "/password/reset/confirm", Self.json(["token": stale, "new_password": "the attacker's choice here"]), from: home)
                #expect(late.status == .unauthorized)
                #expect(try await client.login("gwen", "yet another passphrase", from: home).status == .ok)
            }
        }
    }

    /// A receiver that refuses gets the message again, with backoff; until it takes it, the
    /// outbox holds the token sealed, and afterwards not at all.
    @Test func aRefusedMessageIsRetriedAndItsTokenIsSealedMeanwhile() async throws {
        let mailbox = TestMailbox()
        mailbox.refuse(true)
        try await EphemeralServer.withRunning(mailbox.router()) { base in
            let fixture = try await Self.fixture(deliveringTo: base)
            try await fixture.addUser("frank", password: Self.password)
            try await fixture.test { client async throws in
                #expect(try await client.postJSON("/password/reset", Self.json(["username": "frank"])).status == .accepted)
                let deadline = ContinuousClock.now + .seconds(60)
                while mailbox.attempts < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
                #expect(mailbox.attempts >= 2)
                let (sealed, attempts, lastError) = try await fixture.withDatabase { database async throws in
                    for try await row in try await database.client.query("SELECT sealed_token, attempts, last_error FROM deliveries")
                        .decode((ByteBuffer, Int32, String?).self)
                    {
                        return (Data(buffer: row.0), row.1, row.2)
                    }
                    throw TestMailboxTimeout()
                }
                #expect(attempts >= 2)
                #expect(lastError?.contains("503") == true)
                mailbox.refuse(false)
                let message = try await mailbox.next(within: .seconds(60))
                let token = try #require(message.json["token"] as? String)
                #expect(sealed.range(of: Data(token.utf8)) == nil)
                #expect(
                    try await client.postJSON("/password/reset/confirm", Self.json(["token": token, "new_password": Self.newPassword]))
                        .status == .noContent)
            }
            #expect(try await Self.count("SELECT count(*)::int8 FROM deliveries WHERE sealed_token IS NOT NULL", in: fixture) == 0)
        }
    }

    /// A reset token works for its lifetime only; a message not delivered by then is given up.
    @Test func anExpiredTokenIsRefusedAndItsMessageGivenUp() async throws {
        let mailbox = TestMailbox()
        let clock = TestClock()
        try await EphemeralServer.withRunning(mailbox.router()) { base in
            let fixture = try await Self.fixture(deliveringTo: base, clock: clock)
            try await fixture.addUser("gina", password: Self.password)
            try await fixture.test { client async throws in
                #expect(try await client.postJSON("/password/reset", Self.json(["username": "gina"])).status == .accepted)
                let token = try #require(try await mailbox.next(within: .seconds(60)).json["token"] as? String)
                clock.advance(by: 1_801)
                let late = try await client.postJSON(
                    "/password/reset/confirm", Self.json(["token": token, "new_password": Self.newPassword]))
                #expect(late.status == .unauthorized)

                mailbox.refuse(true)
                #expect(try await client.postJSON("/password/reset", Self.json(["username": "gina"])).status == .accepted)
                // Once the refusal is recorded (its retry set by the test clock), the token expires.
                let deadline = ContinuousClock.now + .seconds(60)
                while try await Self.failedAttempts(in: fixture) == 0, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                }
                clock.advance(by: 1_801)
                // The sender's next pass (within its poll interval, slower on a loaded machine).
                let given = ContinuousClock.now + .seconds(60)
                while try await Self.abandoned(in: fixture) == 0, ContinuousClock.now < given {
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            #expect(try await Self.abandoned(in: fixture) == 1)
            #expect(try await fixture.auditKinds().contains("delivery_abandoned"))
        }
    }

    /// Messages whose last attempt failed and that wait for another.
    static func failedAttempts(in fixture: ServerFixture) async throws -> Int {
        try await count(
            "SELECT count(*)::int8 FROM deliveries WHERE last_error IS NOT NULL AND abandoned_at IS NULL AND delivered_at IS NULL",
            in: fixture)
    }

    /// Messages given up, their sealed tokens erased.
    static func abandoned(in fixture: ServerFixture) async throws -> Int {
        try await count("SELECT count(*)::int8 FROM deliveries WHERE abandoned_at IS NOT NULL AND sealed_token IS NULL", in: fixture)
    }

    /// The one number `query` (a `SELECT count(*)::int8 …`) answers on the fixture's database.
    static func count(_ query: PostgresQuery, in fixture: ServerFixture) async throws -> Int {
        try await fixture.withDatabase { database async throws in
            for try await count in try await database.client.query(query).decode(Int.self) {
                return count
            }
            return -1
        }
    }

    /// Sign-up refuses a malformed address (a taken one: OwnerNoticeTests).
    @Test func signUpRefusesAMalformedAddress() async throws {
        try await Self.withMailbox { mailbox, fixture in
            try await fixture.test { client async throws in
                let first = try await client.postJSON(
                    "/users", Self.json(["username": "hal", "password": Self.password, "email": "hal@example.com"]))
                #expect(first.status == .created)
                let malformed = try await client.postJSON(
                    "/users", Self.json(["username": "ian", "password": Self.password, "email": "not an address"]))
                #expect(malformed.status == .badRequest)
                // An optional field sent as null is refused, not taken as absent.
                let null = try await client.postJSON(
                    "/users", #"{"username":"ian","password":"correct horse battery staple","email":null}"#)
                #expect(null.status == .badRequest)
                #expect(try null.error().description == "email must not be null")
                let nullReset = try await client.postJSON("/password/reset", #"{"username":"hal","email":null}"#)
                #expect(nullReset.status == .badRequest)
                #expect(try await client.postJSON("/users", Self.json(["username": "ian", "password": Self.password])).status == .created)
            }
        }
    }

    /// Without a delivery URL the routes do not exist.
    @Test func withoutADeliveryURLTheRoutesAreNotFound() async throws {
        let fixture = try await ServerFixture()
        try await fixture.test { client async throws in
            for path in ["/password/reset", "/password/reset/confirm", "/email/verify"] {
                #expect(try await client.postJSON(path, #"{"username":"x"}"#).status == .notFound)
            }
        }
    }
}

/// The outbox's guarantees on PostgreSQL without the HTTP routes: a message whose sender
/// died after claiming it is sent once its lease runs out, and a reset costs the same
/// whether or not the account exists.
@Suite struct OutboxTests {
    /// Runs `body` with the delivery transport's client, shut down afterwards.
    static func withDeliveryClient(_ body: (HTTPClient) async throws -> Void) async throws {
        let client = HTTPDeliveryTransport.makeClient()
        do {
            try await body(client)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    @Test func aMessageWhoseSenderDiedIsSentAfterItsLease() async throws {
        let mailbox = TestMailbox()
        let fixture = try await ServerFixture()
        let user = try await fixture.addUser("ida", password: PasswordResetTests.password)
        let kek = KeyEncryptionKey.generate()
        let clock = TestClock()
        let storage = PostgresStorage(
            configuration: fixture.testDatabase.configuration, timeout: TestCluster.operationTimeout, logger: TestCluster.logger)
        try await storage.withRunning { storage in
            let hashing = PasswordHashing(hasher: Argon2idHasher(parameters: .testLight), pool: BlockingWorkPool(width: 1, queueLimit: 4))
            let recovery = AccountRecoveryService(
                storage: storage, hashing: hashing, sealer: DeliverySealer(keyEncryptionKey: kek), clock: clock)
            try await recovery.requestPasswordReset(username: "ida", email: nil, origin: RequestOrigin())
            // A sender claims the message and dies before posting it.
            let claimed = try await storage.outbox.claim(limit: 10, now: clock.now, leaseUntil: clock.now.addingTimeInterval(30))
            #expect(claimed.map(\.userID) == [user.id])

            try await EphemeralServer.withRunning(mailbox.router()) { base in
                try await Self.withDeliveryClient { client in
                    let transport = HTTPDeliveryTransport(url: try #require(URL(string: "\(base)/deliveries")), client: client)
                    // A post may take long under the suite's load (the default 10 s did not do).
                    var policy = DeliveryPolicy()
                    policy.timeout = 120
                    let sender = DeliveryService(
                        storage: storage, transport: transport, secret: SymmetricKey(data: Data(PasswordResetTests.secret.utf8)),
                        sealer: DeliverySealer(keyEncryptionKey: kek), policy: policy, clock: clock
                    )
                    #expect(try await sender.runOnce().claimed == 0)  // still leased
                    clock.advance(by: 31)
                    #expect(try await sender.runOnce().delivered == 1)
                    let message = try await mailbox.next(within: .seconds(60))
                    #expect(message.json["username"] as? String == "ida")
                    #expect(try await sender.runOnce().claimed == 0)  // delivered once
                }
            }
        }
    }

    /// A delivery URL that answers 307 to another origin gets the message no further: the
    /// token is not re-posted there, and the attempt counts as failed (retried later).
    @Test func aRedirectIsNotFollowed() async throws {
        let mailbox = TestMailbox()
        let fixture = try await ServerFixture()
        try await fixture.addUser("ida", password: PasswordResetTests.password)
        let kek = KeyEncryptionKey.generate()
        let storage = PostgresStorage(
            configuration: fixture.testDatabase.configuration, timeout: TestCluster.operationTimeout, logger: TestCluster.logger)
        try await storage.withRunning { storage in
            let hashing = PasswordHashing(hasher: Argon2idHasher(parameters: .testLight), pool: BlockingWorkPool(width: 1, queueLimit: 4))
            let recovery = AccountRecoveryService(storage: storage, hashing: hashing, sealer: DeliverySealer(keyEncryptionKey: kek))
            try await recovery.requestPasswordReset(username: "ida", email: nil, origin: RequestOrigin())
            try await EphemeralServer.withRunning(mailbox.router()) { elsewhere in
                let redirecting = Router()
                redirecting.post("/deliveries") { _, _ -> Response in
                    Response(status: .temporaryRedirect, headers: [.location: "\(elsewhere)/deliveries"])
                }
                try await EphemeralServer.withRunning(redirecting) { base in
                    try await Self.withDeliveryClient { client in
                        let sender = DeliveryService(
                            storage: storage,
                            transport: HTTPDeliveryTransport(url: try #require(URL(string: "\(base)/deliveries")), client: client),
                            secret: SymmetricKey(data: Data(PasswordResetTests.secret.utf8)), sealer: DeliverySealer(keyEncryptionKey: kek)
                        )
                        #expect(try await sender.runOnce().failed == 1)
                        #expect(mailbox.attempts == 0)
                    }
                }
            }
        }
    }

    /// The message's id is inside the signed body, as `delivery_id`, equal to the
    /// `Authd-Delivery-Id` header: a receiver that de-duplicates on it relies on signed data,
    /// and a replayed body with another id in the header is told apart.
    @Test func theDeliveryIDIsSigned() async throws {
        let mailbox = TestMailbox()
        try await EphemeralServer.withRunning(mailbox.router()) { base in
            let fixture = try await PasswordResetTests.fixture(deliveringTo: base)
            try await fixture.addUser("ida", password: PasswordResetTests.password)
            try await fixture.test { client async throws in
                #expect(try await client.postJSON("/password/reset", PasswordResetTests.json(["username": "ida"])).status == .accepted)
                let message = try await mailbox.next(within: .seconds(60))
                let id = try #require(message.json["delivery_id"] as? String)
                #expect(Int64(id) != nil)
                #expect(message.headers["authd-delivery-id"] == id)
                let secret = SymmetricKey(data: Data(PasswordResetTests.secret.utf8))
                let header = try #require(message.headers["authd-signature"])
                try DeliverySignature.verify(header, body: message.body, secret: secret, now: Date())
                let tampered = Data(
                    String(decoding: message.body, as: UTF8.self).replacingOccurrences(
                        of: "\"delivery_id\":\"\(id)\"", with: "\"delivery_id\":\"\(id)0\""
                    ).utf8)
                #expect(tampered != message.body)
                #expect(throws: DeliverySignatureError.mismatch) {
                    try DeliverySignature.verify(header, body: tampered, secret: secret, now: Date())
                }
            }
        }
    }

    /// Waits until the metrics count `count` password-reset messages delivered.
    static func waitForDelivered(_ count: Int, client: some TestClientProtocol) async throws {
        let line = #"authd_deliveries_total{kind="password_reset",outcome="delivered"} \#(count)"#
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if String(buffer: try await client.execute(uri: "/metrics", method: .get).body).contains(line) { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("no \(line) within 60 s")
    }

    /// A reset's answer waits for the same work whether or not an account answers to the
    /// name (the request checked and counted: one database operation for an account and for
    /// another name alike, and no hash), and for nothing the account adds: with the account's
    /// row held by another transaction, which its token's insert waits for, the request is
    /// answered while no token exists; once the row is free, the message arrives. (The two
    /// kinds' times, compared side by side, also measured the rest of the suite's load.)
    @Test func aResetIsAnsweredBeforeTheAccountsWorkWhichCostsTheSameForAnyName() async throws {
        let mailbox = TestMailbox()
        try await EphemeralServer.withRunning(mailbox.router()) { base in
            let fixture = try await PasswordResetTests.fixture(deliveringTo: base)
            let jo = try await fixture.addUser("jo", password: PasswordResetTests.password)
            let storage = PostgresStorage(
                configuration: fixture.testDatabase.configuration, timeout: TestCluster.operationTimeout, logger: TestCluster.logger)
            try await storage.withRunning { storage in
                let pool = BlockingWorkPool(width: 1, queueLimit: 4)
                let recovery = AccountRecoveryService(
                    storage: storage, hashing: PasswordHashing(hasher: Argon2idHasher(parameters: .testLight), pool: pool),
                    sealer: DeliverySealer(keyEncryptionKey: fixture.keyEncryptionKey))
                var operations: [Int] = []
                for name in ["jo", "nobody"] {
                    let before = storage.database.operationCount
                    _ = try await recovery.acceptPasswordReset(
                        username: name, email: nil, origin: RequestOrigin(clientAddress: "192.0.2.1"))
                    operations.append(storage.database.operationCount - before)
                }
                #expect(operations == [1, 1], "an account's answer and another name's")
                #expect(await pool.load().completed == 0, "no hash")
            }
            try await fixture.test { client async throws in
                try await TestCluster.withDatabase(fixture.testDatabase.configuration) { database in
                    try await database.client.withConnection { holder in
                        _ = try await holder.query("BEGIN", logger: TestCluster.logger)
                        _ = try await holder.query("SELECT id FROM users WHERE id = \(jo.id) FOR UPDATE", logger: TestCluster.logger)
                        let (answer, tokens) = try await withThrowingTaskGroup(of: Int?.self) { group in
                            group.addTask {
                                try await client.postJSON("/password/reset", PasswordResetTests.json(["username": "jo"])).status.code
                            }
                            // Only an answer that waits on the row loses to this: the holder keeps
                            // the lock until there is one, so the time bounds a failure, never a pass.
                            group.addTask {
                                try await Task.sleep(for: .seconds(120))
                                return nil
                            }
                            let first = try await group.next() ?? nil
                            var tokens = -1
                            for try await count in try await holder.query(
                                "SELECT count(*)::int8 FROM account_tokens WHERE user_id = \(jo.id)", logger: TestCluster.logger
                            ).decode(Int.self) { tokens = count }
                            // Let an answer that waits on the row go before the group ends.
                            _ = try await holder.query("ROLLBACK", logger: TestCluster.logger)
                            group.cancelAll()
                            return (first, tokens)
                        }
                        #expect(answer == 202, "the answer waited for the account's token")
                        #expect(tokens == 0)
                    }
                }
                let message = try await mailbox.next(within: .seconds(60))
                #expect(message.json["kind"] as? String == "password_reset")
            }
        }
    }
}
