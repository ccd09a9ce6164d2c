import AuthCore
import AuthPostgres
import AuthTestSupport
import Foundation
import Testing

/// Sessions end when they must, on PostgreSQL, where rotation and revocation run
/// concurrently for real.
@Suite struct SessionRevocationTests {
    static func hash() -> String { RefreshToken.generate().hash }

    /// A thief rotates the newest token in a loop while the owner logs out (or an operator
    /// ends every session): once the revocation has returned, no token of the family works,
    /// the successor made during the race included.
    @Test func aRevocationAndAConcurrentRotationSerialise() async throws {
        try await TestCluster.withMigratedDatabase { database, _ in
            let users = PostgresUserRepository(database: database)
            let tokens = PostgresRefreshTokenRepository(database: database)
            let owner = try await users.create(username: try Username("owner"), passwordHash: "h", at: Date())
            let now = Date()
            var survivors = 0
            for round in 0..<300 {
                let first = RefreshTokenRecord(
                    tokenHash: Self.hash(), familyID: UUID(), userID: owner.id, expiresAt: now.addingTimeInterval(600),
                    sessionExpiresAt: now.addingTimeInterval(900)
                )
                try await tokens.store(first)
                let thief = Task { () -> String in
                    var newest = first.tokenHash
                    for _ in 0..<4 {
                        let next = RefreshSuccessor(tokenHash: Self.hash(), expiresAt: now.addingTimeInterval(600))
                        guard case .rotated = try await tokens.rotate(presentedHash: newest, successor: next, now: now) else { break }
                        newest = next.tokenHash
                    }
                    return newest
                }
                if round.isMultiple(of: 2) {
                    #expect(try await tokens.revokeFamily(ofTokenHash: first.tokenHash, now: now) == owner.id)
                } else {
                    #expect(try await tokens.revokeAll(ofUser: owner.id, now: now) == 1)
                }
                let newest = try await thief.value
                let attempt = RefreshSuccessor(tokenHash: Self.hash(), expiresAt: now.addingTimeInterval(600))
                if case .rotated = try await tokens.rotate(presentedHash: newest, successor: attempt, now: now) { survivors += 1 }
            }
            #expect(survivors == 0)
        }
    }

    @Test func aSessionEndsAtItsMaxAgeAndItsSuccessorsNeverOutliveIt() async throws {
        try await TestCluster.withMigratedDatabase { database, _ in
            let users = PostgresUserRepository(database: database)
            let tokens = PostgresRefreshTokenRepository(database: database)
            let owner = try await users.create(username: try Username("owner"), passwordHash: "h", at: Date())
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            let first = RefreshTokenRecord(
                tokenHash: Self.hash(), familyID: UUID(), userID: owner.id, expiresAt: start.addingTimeInterval(60),
                sessionExpiresAt: start.addingTimeInterval(100)
            )
            try await tokens.store(first)
            let second = RefreshSuccessor(tokenHash: Self.hash(), expiresAt: start.addingTimeInterval(110))
            #expect(
                try await tokens.rotate(presentedHash: first.tokenHash, successor: second, now: start.addingTimeInterval(50))
                    == .rotated(userID: owner.id, sessionID: first.familyID, expiresAt: start.addingTimeInterval(100)))
            let third = RefreshSuccessor(tokenHash: Self.hash(), expiresAt: start.addingTimeInterval(200))
            #expect(
                try await tokens.rotate(presentedHash: second.tokenHash, successor: third, now: start.addingTimeInterval(100)) == .expired)
        }
    }

    @Test func revokingEverySessionOfOneUserLeavesOthersAlone() async throws {
        try await TestCluster.withMigratedDatabase { database, _ in
            let users = PostgresUserRepository(database: database)
            let tokens = PostgresRefreshTokenRepository(database: database)
            let alice = try await users.create(username: try Username("alice"), passwordHash: "h", at: Date())
            let bob = try await users.create(username: try Username("bob"), passwordHash: "h", at: Date())
            let now = Date()
            func session(_ user: User) async throws -> String {
                let record = RefreshTokenRecord(
                    tokenHash: Self.hash(), familyID: UUID(), userID: user.id, expiresAt: now.addingTimeInterval(60),
                    sessionExpiresAt: now.addingTimeInterval(600))
                try await tokens.store(record)
                return record.tokenHash
            }
            let alices = [try await session(alice), try await session(alice), try await session(alice)]
            let bobs = try await session(bob)
            _ = try await tokens.revokeFamily(ofTokenHash: alices[0], now: now)
            #expect(try await tokens.revokeAll(ofUser: alice.id, now: now) == 2)
            #expect(try await tokens.revokeAll(ofUser: alice.id, now: now) == 0)
            for hash in alices {
                #expect(
                    try await tokens.rotate(
                        presentedHash: hash, successor: RefreshSuccessor(tokenHash: Self.hash(), expiresAt: now.addingTimeInterval(60)),
                        now: now) == .revoked)
            }
            #expect(
                try await tokens.rotate(
                    presentedHash: bobs, successor: RefreshSuccessor(tokenHash: Self.hash(), expiresAt: now.addingTimeInterval(60)),
                    now: now
                ).label == "rotated")
        }
    }

    /// A login that checked the old password just before a password was set writes its
    /// session after the set and its revocation: the write sees the new hash and starts
    /// no session. Run in that order first, then raced for real 100 times, where every
    /// login either starts no session or starts one the revocation then ends.
    @Test func aLoginCheckedBeforeAPasswordSetStartsNoSessionAfterIt() async throws {
        let testDatabase = try await TestCluster.newDatabase()
        try await PostgresStorage(
            configuration: testDatabase.configuration, timeout: TestCluster.operationTimeout, logger: TestCluster.logger
        ).withRunning { postgres in
            try await postgres.migrate()
            try await Self.checkLoginAfterPasswordSet(postgres)

            let owner = try await postgres.users.create(username: try Username("racer"), passwordHash: "hash-0", at: Date())
            let now = Date()
            var survivors = 0
            for round in 1...100 {
                let checked = "hash-\(round - 1)"
                let success = Self.success(for: owner, verified: checked, now: now)
                async let login = postgres.recordLoginSuccess(success)
                async let reset = postgres.accountTokens.setPassword(
                    PasswordChange(userID: owner.id, passwordHash: "hash-\(round)", replacing: nil, now: now)
                )
                let (recorded, _) = try await (login, reset)
                let next = RefreshSuccessor(tokenHash: Self.hash(), expiresAt: now.addingTimeInterval(600))
                let outcome = try await postgres.refreshTokens.rotate(
                    presentedHash: success.refreshToken.tokenHash, successor: next, now: now)
                if case .rotated = outcome { survivors += 1 }
                #expect(recorded || outcome == .unknown, "round \(round)")
            }
            #expect(survivors == 0)
        }
    }

    private static func success(for user: User, verified: String, now: Date) -> LoginSuccess {
        LoginSuccess(
            throttle: ThrottlePolicy().keys(usernameKey: user.username.lowercased(), address: "192.0.2.4"),
            verifiedPasswordHash: verified,
            refreshToken: RefreshTokenRecord(
                tokenHash: hash(), familyID: UUID(), userID: user.id, expiresAt: now.addingTimeInterval(600),
                sessionExpiresAt: now.addingTimeInterval(900)
            ),
            event: SecurityEvent(
                kind: .loginSucceeded, at: now, userID: user.id, usernameKey: user.username.lowercased(), origin: RequestOrigin())
        )
    }

    private static func checkLoginAfterPasswordSet(_ storage: PostgresStorage) async throws {
        let owner = try await storage.users.create(username: try Username("reset"), passwordHash: "old-hash", at: Date())
        let now = Date()
        // The login checked "old-hash"; then the password is set and every session ended …
        _ = try await storage.accountTokens.setPassword(
            PasswordChange(userID: owner.id, passwordHash: "new-hash", replacing: nil, now: now))
        // … then the login writes: nothing.
        let late = success(for: owner, verified: "old-hash", now: now)
        #expect(try await storage.recordLoginSuccess(late) == false)
        let next = RefreshSuccessor(tokenHash: hash(), expiresAt: now.addingTimeInterval(600))
        #expect(try await storage.refreshTokens.rotate(presentedHash: late.refreshToken.tokenHash, successor: next, now: now) == .unknown)
        #expect(try await storage.audit.recent(limit: 10, usernameKey: "reset").isEmpty)
        // A disabled account: the same.
        _ = try await storage.users.setDisabled(true, usernameKey: "reset", at: now)
        #expect(try await storage.recordLoginSuccess(success(for: owner, verified: "new-hash", now: now)) == false)
        // The hash checked and still the account's: the session starts.
        _ = try await storage.users.setDisabled(false, usernameKey: "reset", at: now)
        #expect(try await storage.recordLoginSuccess(success(for: owner, verified: "new-hash", now: now)))
    }
}
