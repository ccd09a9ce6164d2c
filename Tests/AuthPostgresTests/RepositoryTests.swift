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

    @Test func resettingAPasswordAlsoEnables() async throws {
        try await TestCluster.withMigratedDatabase { database, _ in
            let users = PostgresUserRepository(database: database)
            _ = try await users.create(username: try Username("Erin"), passwordHash: "old", at: Date())
            _ = try await users.setDisabled(true, usernameKey: "erin", at: Date())
            #expect(try await users.setPassword(usernameKey: "erin", passwordHash: "new")?.isDisabled == false)
            let erin = try await users.user(withKey: "erin")
            #expect(erin?.passwordHash == "new")
            #expect(erin?.isDisabled == false)
            #expect(try await users.setPassword(usernameKey: "nobody", passwordHash: "x") == nil)
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
            let gina = try await users.create(username: try Username("Gina"), passwordHash: "h", at: Date())
            let record = RefreshTokenRecord(tokenHash: "t1", familyID: UUID(), userID: gina.id, expiresAt: Date().addingTimeInterval(60), sessionExpiresAt: Date().addingTimeInterval(600))
            try await tokens.store(record)
            #expect(try await users.delete(usernameKey: "gina") == gina)
            #expect(try await users.user(withKey: "gina") == nil)
            #expect(try await users.delete(usernameKey: "gina") == nil)
            let next = RefreshSuccessor(tokenHash: "t2", expiresAt: Date().addingTimeInterval(60))
            #expect(try await tokens.rotate(presentedHash: "t1", successor: next, now: Date()) == .unknown)
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
    @Test func countsFailuresInAWindowAndResets() async throws {
        try await TestCluster.withMigratedDatabase { database, _ in
            let store = PostgresLoginAttemptStore(database: database)
            let key = ThrottleKey(scope: .account, subject: "erin", limit: 3, window: 60)
            let other = ThrottleKey(scope: .account, subject: "frank", limit: 3, window: 60)
            let t0 = Date(timeIntervalSince1970: 1_800_000_000)
            for offset in 0..<2 {
                try await store.recordFailure(for: [key], now: t0.addingTimeInterval(Double(offset)))
            }
            #expect(try await store.retryAfter(for: [key], now: t0.addingTimeInterval(2)) == nil)
            try await store.recordFailure(for: [key], now: t0.addingTimeInterval(2))
            #expect(try await store.retryAfter(for: [key], now: t0.addingTimeInterval(10)) == 50)
            #expect(try await store.retryAfter(for: [other], now: t0.addingTimeInterval(10)) == nil)
            #expect(try await store.retryAfter(for: [key], now: t0.addingTimeInterval(61)) == nil)
            // A failure after the window starts a new one.
            try await store.recordFailure(for: [key], now: t0.addingTimeInterval(61))
            #expect(try await store.retryAfter(for: [key], now: t0.addingTimeInterval(62)) == nil)

            for _ in 0..<3 { try await store.recordFailure(for: [key], now: t0.addingTimeInterval(70)) }
            #expect(try await store.retryAfter(for: [key], now: t0.addingTimeInterval(70)) != nil)
            try await store.reset(key)
            #expect(try await store.retryAfter(for: [key], now: t0.addingTimeInterval(70)) == nil)
        }
    }

    /// Two keys with different limits and windows, counted in one statement each, give
    /// the longest wait; PostgreSQL and the in-memory store agree at every step.
    @Test func severalKeysInOneStatementAgreeWithTheInMemoryStore() async throws {
        try await TestCluster.withMigratedDatabase { database, _ in
            let store = PostgresLoginAttemptStore(database: database)
            let memory = InMemoryLoginAttemptStore()
            let keys = [
                ThrottleKey(scope: .account, subject: "gina", limit: 2, window: 30),
                ThrottleKey(scope: .address, subject: "192.0.2.7", limit: 3, window: 90),
            ]
            let t0 = Date(timeIntervalSince1970: 1_800_000_000)
            for (step, expected) in [(0, nil), (1, 28), (2, 87), (3, 86)] as [(Int, Int?)] {
                let now = t0.addingTimeInterval(Double(step))
                try await store.recordFailure(for: keys, now: now)
                try await memory.recordFailure(for: keys, now: now)
                let afterwards = now.addingTimeInterval(1)
                #expect(try await store.retryAfter(for: keys, now: afterwards) == expected, "step \(step)")
                #expect(try await memory.retryAfter(for: keys, now: afterwards) == expected, "step \(step)")
            }
        }
    }

    @Test func theLoginLookupGivesTheWaitAndTheAccountInOneAnswer() async throws {
        let testDatabase = try await TestCluster.newDatabase()
        try await PostgresStorage(configuration: testDatabase.configuration, timeout: TestCluster.operationTimeout, logger: TestCluster.logger).withRunning { storage in
            try await storage.migrate()
            let harry = try await storage.users.create(username: try Username("Harry"), passwordHash: "$argon2id$stored", at: Date())
            let keys = ThrottlePolicy(accountLimit: 1, addressLimit: 5, window: 60).keys(usernameKey: "harry", address: "192.0.2.9")
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            #expect(try await storage.loginLookup(usernameKey: "harry", throttle: keys.all, now: now) == LoginLookup(retryAfter: nil, user: harry))
            #expect(try await storage.loginLookup(usernameKey: "nobody", throttle: keys.all, now: now) == LoginLookup(retryAfter: nil, user: nil))
            try await storage.loginAttempts.recordFailure(for: keys.all, now: now)
            let throttled = try await storage.loginLookup(usernameKey: "harry", throttle: keys.all, now: now.addingTimeInterval(10))
            #expect(throttled.retryAfter == 50)
        }
    }

    /// The three writes of a successful login happen together, and not at all when one
    /// fails; the in-memory storage (the default, three calls) ends in the same state.
    @Test func aLoginSuccessWritesTheResetTheTokenAndTheEventAsOne() async throws {
        let testDatabase = try await TestCluster.newDatabase()
        try await PostgresStorage(configuration: testDatabase.configuration, timeout: TestCluster.operationTimeout, logger: TestCluster.logger).withRunning { postgres in
            try await postgres.migrate()
            try await Self.checkLoginSuccess(postgres)
            try await Self.checkLoginSuccess(InMemoryStorage())
        }
    }

    private static func checkLoginSuccess(_ storage: some AuthStorage) async throws {
        let ida = try await storage.users.create(username: try Username("Ida"), passwordHash: "$argon2id$stored", at: Date())
        let keys = ThrottlePolicy(accountLimit: 1, addressLimit: 5, window: 60).keys(usernameKey: "ida", address: "192.0.2.10")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try await storage.loginAttempts.recordFailure(for: keys.all, now: now)
        #expect(try await storage.loginAttempts.retryAfter(for: [keys.account], now: now) == 60)

        let token = RefreshTokenRecord(
            tokenHash: String(repeating: "ab", count: 32), familyID: UUID(), userID: ida.id, expiresAt: now.addingTimeInterval(600), sessionExpiresAt: now.addingTimeInterval(900)
        )
        let event = SecurityEvent(kind: .loginSucceeded, at: now, userID: ida.id, usernameKey: "ida", origin: RequestOrigin(clientAddress: "192.0.2.10", requestID: "r-1"))
        try await storage.recordLoginSuccess(LoginSuccess(clearedKey: keys.account, refreshToken: token, event: event))
        #expect(try await storage.loginAttempts.retryAfter(for: [keys.account], now: now) == nil)
        #expect(try await storage.audit.recent(limit: 10, usernameKey: "ida") == [event])
        let successor = RefreshSuccessor(tokenHash: String(repeating: "cd", count: 32), expiresAt: now.addingTimeInterval(600))
        #expect(try await storage.refreshTokens.rotate(presentedHash: token.tokenHash, successor: successor, now: now) == .rotated(userID: ida.id, expiresAt: now.addingTimeInterval(600)))

        guard storage is PostgresStorage else { return }
        // A token hash already stored fails the insert: the counter and the log stay as they were.
        try await storage.loginAttempts.recordFailure(for: keys.all, now: now)
        await #expect(throws: (any Error).self) {
            try await storage.recordLoginSuccess(LoginSuccess(clearedKey: keys.account, refreshToken: token, event: event))
        }
        #expect(try await storage.loginAttempts.retryAfter(for: [keys.account], now: now) == 60)
        #expect(try await storage.audit.recent(limit: 10, usernameKey: "ida") == [event])
    }
}
