import AuthCore
import AuthPostgres
import AuthTestSupport
import Foundation
import PostgresNIO
import Testing

@Suite struct UserRepositoryTests {
    @Test func createsFindsAndListsUsers() async throws {
        try await TestCluster.withMigratedDatabase { database, _ in
            let users = PostgresUserRepository(database: database)
            let alice = try await users.create(username: try Username("Alice"), passwordHash: "$argon2id$x", at: Date())
            #expect(try await users.user(withKey: "alice") == alice)
            #expect(try await users.user(withKey: "bob") == nil)
            _ = try await users.create(username: try Username("bob"), passwordHash: "$argon2id$y", at: Date())
            #expect(try await users.all().map(\.username) == ["Alice", "bob"])
        }
    }

    @Test func namesAreUniqueCaseInsensitivelyAndAfterNFC() async throws {
        try await TestCluster.withMigratedDatabase { database, _ in
            let users = PostgresUserRepository(database: database)
            _ = try await users.create(username: try Username("Ame\u{301}lie"), passwordHash: "h", at: Date())
            await #expect(throws: RepositoryError.duplicateUsername) {
                try await users.create(username: try Username("AMÉLIE"), passwordHash: "h", at: Date())
            }
            #expect(try await users.user(withKey: try Username("amélie").key)?.username == "Amélie")
        }
    }

    @Test func disablesAndEnables() async throws {
        try await TestCluster.withMigratedDatabase { database, _ in
            let users = PostgresUserRepository(database: database)
            _ = try await users.create(username: try Username("carol"), passwordHash: "h", at: Date())
            #expect(try await users.setDisabled(true, usernameKey: "carol", at: Date())?.isDisabled == true)
            #expect(try await users.user(withKey: "carol")?.isDisabled == true)
            #expect(try await users.setDisabled(false, usernameKey: "carol", at: Date())?.isDisabled == false)
            #expect(try await users.user(withKey: "carol")?.isDisabled == false)
            #expect(try await users.setDisabled(true, usernameKey: "nobody", at: Date()) == nil)
        }
    }

    /// Setting a password never enables or disables the account, and ends its reset links
    /// and sessions with it; with the hash a check matched, it is made only while the
    /// account still has it and is enabled.
    @Test func settingAPasswordLeavesTheAccountsStateAndEndsItsLinks() async throws {
        try await TestCluster.withMigratedDatabase { database, _ in
            let users = PostgresUserRepository(database: database)
            let tokens = PostgresAccountTokenRepository(database: database)
            let now = Date()
            let erin = try await users.create(username: try Username("Erin"), passwordHash: "old", at: now)
            _ = try await tokens.issue(
                AccountTokenIssue(
                    purpose: .passwordReset, account: .id(erin.id), tokenHash: "link", sealedToken: Data([1]), createdAt: now,
                    expiresAt: now.addingTimeInterval(600)
                ))
            _ = try await users.setDisabled(true, usernameKey: "erin", at: now)
            let set = try #require(
                try await tokens.setPassword(PasswordChange(userID: erin.id, passwordHash: "new", replacing: nil, now: now)))
            #expect(set.user.passwordHash == "new" && set.user.isDisabled)
            #expect(try await tokens.owner(ofTokenHash: "link", purpose: .passwordReset, now: now) == nil)
            // Checked against "new" while disabled: refused; enabled, against "old": refused.
            #expect(try await tokens.setPassword(PasswordChange(userID: erin.id, passwordHash: "x", replacing: "new", now: now)) == nil)
            _ = try await users.setDisabled(false, usernameKey: "erin", at: now)
            #expect(try await tokens.setPassword(PasswordChange(userID: erin.id, passwordHash: "x", replacing: "old", now: now)) == nil)
            #expect(try await users.delete(CheckedAccount(userID: erin.id, passwordHash: "old")) == nil)
            #expect(try await users.user(withKey: "erin")?.passwordHash == "new")
            #expect(
                try await tokens.setPassword(PasswordChange(userID: erin.id, passwordHash: "newer", replacing: "new", now: now))?.user
                    .passwordHash == "newer")
            #expect(try await users.delete(CheckedAccount(userID: erin.id, passwordHash: "newer"))?.id == erin.id)
            #expect(try await tokens.setPassword(PasswordChange(userID: UUID(), passwordHash: "x", replacing: nil, now: now)) == nil)
        }
    }

    @Test func createdAtIsTheGivenTime() async throws {
        try await TestCluster.withMigratedDatabase { database, _ async throws in
            let users = PostgresUserRepository(database: database)
            let at = Date(timeIntervalSince1970: 1_700_000_000)
            #expect(try await users.create(username: try Username("frank"), passwordHash: "h", at: at).createdAt == at)
            #expect(try await users.user(withKey: "frank")?.createdAt == at)
        }
    }

    @Test func deletingAnAccountDeletesItsRefreshTokens() async throws {
        try await TestCluster.withMigratedDatabase { database, _ in
            let users = PostgresUserRepository(database: database)
            let tokens = PostgresRefreshTokenRepository(database: database)
            let gina = try await createAccount("Gina", withRefreshToken: "t1", in: database).user
            #expect(try await users.delete(usernameKey: "gina") == gina)
            #expect(try await users.user(withKey: "gina") == nil)
            #expect(try await users.delete(usernameKey: "gina") == nil)
            let next = RefreshSuccessor(tokenHash: "t2", expiresAt: Date().addingTimeInterval(60))
            #expect(try await tokens.rotate(presentedHash: "t1", successor: next, now: Date()) == .unknown)
        }
    }

    /// A rotation reads its account but takes no lock on the account's row (the token has
    /// no foreign key of its own to it): a transaction holding that row does not hold up
    /// the account's refreshes.
    @Test func aRotationDoesNotWaitOnItsAccountsRow() async throws {
        try await TestCluster.withMigratedDatabase { database, _ in
            let tokens = PostgresRefreshTokenRepository(database: database)
            let (hana, record) = try await createAccount("hana", withRefreshToken: "h1", in: database)
            try await database.client.withConnection { holder in
                _ = try await holder.query("BEGIN", logger: TestCluster.logger)
                _ = try await holder.query("SELECT id FROM users WHERE id = \(hana.id) FOR UPDATE", logger: TestCluster.logger)
                let next = RefreshSuccessor(tokenHash: "h2", expiresAt: Date().addingTimeInterval(60))
                let outcome = try await withThrowingTaskGroup(of: RefreshRotation?.self) { group in
                    group.addTask { try await tokens.rotate(presentedHash: "h1", successor: next, now: Date()) }
                    // Only a rotation that waits on the row loses to this: the holder keeps the
                    // lock until it has an answer, so the time bounds a failure, never a pass.
                    group.addTask {
                        try await Task.sleep(for: .seconds(120))
                        return nil
                    }
                    let first = try await group.next() ?? nil
                    // Let a rotation that waits on the row go before the group ends.
                    _ = try await holder.query("ROLLBACK", logger: TestCluster.logger)
                    group.cancelAll()
                    return first
                }
                guard case .rotated(let owner, let session, _, _)? = outcome else {
                    Issue.record("the rotation waited on the account's row, or did not rotate: \(String(describing: outcome))")
                    return
                }
                #expect(owner == hana.id && session == record.familyID)
            }
        }
    }

    @Test func replacesAHashOnlyIfUnchanged() async throws {
        try await TestCluster.withMigratedDatabase { database, _ in
            let users = PostgresUserRepository(database: database)
            let dave = try await users.create(username: try Username("dave"), passwordHash: "old", at: Date())
            try await users.replacePasswordHash(userID: dave.id, old: "stale", new: "lost")
            #expect(try await users.user(withKey: "dave")?.passwordHash == "old")
            try await users.replacePasswordHash(userID: dave.id, old: "old", new: "new")
            #expect(try await users.user(withKey: "dave")?.passwordHash == "new")
        }
    }
}

@Suite struct LoginAttemptStoreTests {
    @Test func reservesAttemptsInAWindowAndRefusesPastTheLimit() async throws {
        try await TestCluster.withMigratedDatabase { database, _ in
            let store = PostgresLoginAttemptStore(database: database)
            let key = ThrottleKey(scope: .account, subject: "erin", limit: 3, window: 60)
            let other = ThrottleKey(scope: .account, subject: "frank", limit: 3, window: 60)
            let t0 = Date(timeIntervalSince1970: 1_800_000_000)
            for offset in 0..<3 {
                #expect(try await store.reserve([key], now: t0.addingTimeInterval(Double(offset))) == nil)
            }
            #expect(try await store.reserve([key], now: t0.addingTimeInterval(10)) == ThrottleRefusal(retryAfter: 50, isFirst: true))
            #expect(try await store.reserve([key], now: t0.addingTimeInterval(11)) == ThrottleRefusal(retryAfter: 49, isFirst: false))
            #expect(try await store.reserve([other], now: t0.addingTimeInterval(10)) == nil)
            // The window's end starts a new one.
            #expect(try await store.reserve([key], now: t0.addingTimeInterval(61)) == nil)
            // Given back: one more attempt; cleared: a fresh count.
            for _ in 0..<2 { #expect(try await store.reserve([key], now: t0.addingTimeInterval(62)) == nil) }
            #expect(try await store.reserve([key], now: t0.addingTimeInterval(62)) != nil)
            try await store.release([key], clearing: [])
            #expect(try await store.reserve([key], now: t0.addingTimeInterval(62)) == nil)
            #expect(try await store.reserve([key], now: t0.addingTimeInterval(62)) != nil)
            try await store.release([], clearing: [key])
            for _ in 0..<3 { #expect(try await store.reserve([key], now: t0.addingTimeInterval(62)) == nil) }
        }
    }

    /// Keys with different limits and windows, one of them growing: reserved together,
    /// refused together (a refusal counts against no key), the longest wait given; each
    /// used-up window of the growing key doubles the next, up to its maximum, and one not
    /// used up brings it back to the first length. Every answer of `login_reserve` is the
    /// one the rule gives, written out step by step: the wait until the refusing window's
    /// end, and whether the refusal is that window's first.
    @Test func severalKeysAndGrowingWindowsFollowTheRule() async throws {
        try await TestCluster.withMigratedDatabase { database, _ in
            let store = PostgresLoginAttemptStore(database: database)
            let growing = ThrottleKey(scope: .account, subject: "gina", limit: 2, window: 30, maxWindow: 100)
            let fixed = ThrottleKey(scope: .address, subject: "192.0.2.7", limit: 3, window: 90)
            // The windows the steps below expect: the growing key's after 0, 1, 2 and 3 used-up
            // ones (30 s doubled, up to 100 s); the fixed key's stays 90 s.
            #expect((0..<4).map { growing.windowLength(afterLockouts: $0) } == [30, 60, 100, 100])
            #expect(fixed.windowLength(afterLockouts: 1) == 90)
            let t0 = Date(timeIntervalSince1970: 1_800_000_000)
            func refused(_ wait: Int, first: Bool = true) -> ThrottleRefusal? {
                ThrottleRefusal(retryAfter: wait, isFirst: first)
            }
            let steps: [(at: Double, keys: [ThrottleKey], expected: ThrottleRefusal?)] = [
                (0, [growing, fixed], nil), (1, [growing, fixed], nil),
                (2, [growing, fixed], refused(28)),  // gina's window used up: 30 s from t0
                (3, [fixed], nil),  // the refusal counted against no key
                (4, [fixed], refused(86)),  // 192.0.2.7 used up: 90 s from t0
                (5, [growing, fixed], refused(85, first: false)),  // both refused again: the longer wait, 90 - 5
                (31, [growing], nil), (32, [growing], nil),
                (33, [growing], refused(58)),  // second window: 60 s from t0 + 31
                (91, [growing], nil), (92, [growing], nil),
                (93, [growing], refused(98)),  // third: 120 s, capped at 100, from t0 + 91
                (191, [growing], nil),  // fourth window (100 s), not used up …
                (292, [growing], nil), (293, [growing], nil),
                (294, [growing], refused(28)),  // … so the fifth is 30 s again
            ]
            for step in steps {
                let refusal = try await store.reserve(step.keys, now: t0.addingTimeInterval(step.at))
                #expect(refusal == step.expected, "at \(step.at)")
            }
        }
    }

    /// Forty simultaneous reservations on a key of limit 10: exactly ten are granted,
    /// whatever the interleaving, because the key's row is locked before it is read.
    @Test func simultaneousReservationsNeverOutrunTheLimit() async throws {
        try await TestCluster.withMigratedDatabase { database, _ in
            let store = PostgresLoginAttemptStore(database: database)
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            for round in 0..<3 {
                let keys = ThrottlePolicy(pairLimit: 10, accountLimit: 10, addressLimit: 100, window: 60)
                    .keys(usernameKey: "burst-\(round)", address: "192.0.2.\(round)").all
                let granted = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for _ in 0..<40 { group.addTask { try await store.reserve(keys, now: now) == nil } }
                    return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
                #expect(granted == 10, "round \(round)")
            }
        }
    }

    /// One name authenticating many times at once from one address (as a service's
    /// client_credentials grants did): each reserves an attempt on three counters and, on
    /// success, releases them. Both lock the counters in one order (scope, then digest), and
    /// the release resets them in place; when it deleted them for the next reservation to
    /// insert again, they waited on each other's new rows until PostgreSQL ended one after
    /// its deadlock_timeout with an error (a grant got a 500 about every second under load).
    @Test func simultaneousReservationsAndReleasesOfOneNameNeverDeadlock() async throws {
        try await TestCluster.withMigratedDatabase { database, _ in
            let store = PostgresLoginAttemptStore(database: database)
            let keys = ThrottlePolicy().keys(usernameKey: "orders-api", address: "192.0.2.7")
            let failures = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        var failures: [String] = []
                        for _ in 0..<25 {
                            do {
                                _ = try await store.reserve(keys.all, now: Date())
                                try await store.release(keys.releasedBySuccess, clearing: keys.clearedByPassword)
                            } catch {
                                failures.append(String(reflecting: error))
                            }
                        }
                        return failures
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(failures.isEmpty, "\(failures.prefix(1))")
        }
    }

    @Test func theLoginLookupReservesAndGivesTheAccountInOneAnswer() async throws {
        let testDatabase = try await TestCluster.newDatabase()
        try await PostgresStorage(
            configuration: testDatabase.configuration, timeout: TestCluster.operationTimeout, logger: TestCluster.logger
        ).withRunning { storage in
            try await storage.migrate()
            let harry = try await storage.users.create(username: try Username("Harry"), passwordHash: "$argon2id$stored", at: Date())
            let keys = ThrottlePolicy(pairLimit: 2, accountLimit: 5, addressLimit: 5, window: 60).keys(
                usernameKey: "harry", address: "192.0.2.9")
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            #expect(
                try await storage.loginLookup(usernameKey: "harry", throttle: keys.all, now: now) == LoginLookup(refusal: nil, user: harry))
            #expect(
                try await storage.loginLookup(usernameKey: "harry", throttle: keys.all, now: now) == LoginLookup(refusal: nil, user: harry))
            let throttled = try await storage.loginLookup(usernameKey: "harry", throttle: keys.all, now: now.addingTimeInterval(10))
            #expect(throttled == LoginLookup(refusal: ThrottleRefusal(retryAfter: 50, isFirst: true), user: harry))
            let otherName = ThrottlePolicy(pairLimit: 2, accountLimit: 5, addressLimit: 5, window: 60).keys(
                usernameKey: "nobody", address: "192.0.2.9")
            #expect(
                try await storage.loginLookup(usernameKey: "nobody", throttle: otherName.all, now: now)
                    == LoginLookup(refusal: nil, user: nil))
        }
    }

    /// The three writes of a successful login happen together, and not at all when one
    /// fails.
    @Test func aLoginSuccessWritesTheResetTheTokenAndTheEventAsOne() async throws {
        let testDatabase = try await TestCluster.newDatabase()
        try await PostgresStorage(
            configuration: testDatabase.configuration, timeout: TestCluster.operationTimeout, logger: TestCluster.logger
        ).withRunning { postgres in
            try await postgres.migrate()
            try await Self.checkLoginSuccess(postgres)
        }
    }

    private static func checkLoginSuccess(_ storage: PostgresStorage) async throws {
        let ida = try await storage.users.create(username: try Username("Ida"), passwordHash: "$argon2id$stored", at: Date())
        let keys = ThrottlePolicy(pairLimit: 1, accountLimit: 1, addressLimit: 2, window: 60).keys(
            usernameKey: "ida", address: "192.0.2.10")
        let address = try #require(keys.address)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(try await storage.loginAttempts.reserve(keys.all, now: now) == nil)

        let token = RefreshTokenRecord(
            tokenHash: String(repeating: "ab", count: 32), familyID: UUID(), userID: ida.id, expiresAt: now.addingTimeInterval(600),
            sessionExpiresAt: now.addingTimeInterval(900)
        )
        let event = SecurityEvent(
            kind: .loginSucceeded, at: now, userID: ida.id, usernameKey: "ida",
            origin: RequestOrigin(clientAddress: "192.0.2.10", requestID: "r-1"))
        #expect(
            try await storage.recordLoginSuccess(
                LoginSuccess(throttle: keys, verifiedPasswordHash: ida.passwordHash, refreshToken: token, event: event)))
        // The username's counters are cleared; the address's attempt is given back (its limit is 2).
        #expect(try await storage.loginAttempts.reserve([keys.account], now: now) == nil)
        #expect(try await storage.loginAttempts.reserve([address], now: now) == nil)
        #expect(try await storage.loginAttempts.reserve([address], now: now) == nil)
        #expect(try await storage.loginAttempts.reserve([address], now: now) != nil)
        #expect(try await storage.audit.recent(limit: 10, usernameKey: "ida") == [event])
        let successor = RefreshSuccessor(tokenHash: String(repeating: "cd", count: 32), expiresAt: now.addingTimeInterval(600))
        #expect(
            try await storage.refreshTokens.rotate(presentedHash: token.tokenHash, successor: successor, now: now)
                == .rotated(userID: ida.id, sessionID: token.familyID, expiresAt: now.addingTimeInterval(600)))

        // A token hash already stored fails the insert: the counters and the log stay as they were.
        await #expect(throws: (any Error).self) {
            try await storage.recordLoginSuccess(
                LoginSuccess(throttle: keys, verifiedPasswordHash: ida.passwordHash, refreshToken: token, event: event))
        }
        #expect(try await storage.loginAttempts.reserve([keys.account], now: now) != nil)
        #expect(try await storage.audit.recent(limit: 10, usernameKey: "ida") == [event])
    }
}
