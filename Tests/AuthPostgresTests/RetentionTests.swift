import AuthCore
import AuthPostgres
import AuthTestSupport
import Foundation
import Testing

/// Retention on PostgreSQL: what is older than its period goes, in bounded batches, and
/// what is not stays.
@Suite struct RetentionTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let day: TimeInterval = 86_400
    static let policy = RetentionPolicy(
        auditEvents: 30 * 86_400, loginCounters: 2 * 86_400, endedSessions: 7 * 86_400, batchSize: 2, maxBatchesPerRun: 100)

    /// What the seed leaves once retention has run: the recent audit events, the recent
    /// counter, and the live sessions with their unexpired tokens.
    struct Remains: Equatable {
        var events: Int
        var counterAllowed: Bool
        var liveTokensRotate: Int
    }

    @Test func oldRowsGoInBatchesAndRecentOnesStay() async throws {
        let testDatabase = try await TestCluster.newDatabase()
        try await PostgresStorage(
            configuration: testDatabase.configuration, timeout: TestCluster.operationTimeout, logger: TestCluster.logger
        ).withRunning { storage in
            try await storage.migrate()
            #expect(try await Self.check(storage) == Remains(events: 3, counterAllowed: false, liveTokensRotate: 1))
        }
    }

    /// One run deletes at most `batchSize × maxBatchesPerRun` rows of a table; the next
    /// run goes on where it stopped.
    @Test func aRunIsBoundedAndTheNextGoesOn() async throws {
        let testDatabase = try await TestCluster.newDatabase()
        try await PostgresStorage(
            configuration: testDatabase.configuration, timeout: TestCluster.operationTimeout, logger: TestCluster.logger
        ).withRunning { storage in
            try await storage.migrate()
            for index in 0..<7 {
                try await storage.audit.record(
                    SecurityEvent(
                        kind: .loginFailed, at: Self.now.addingTimeInterval(-100 * Self.day + Double(index)), origin: RequestOrigin()))
            }
            var policy = Self.policy
            policy.maxBatchesPerRun = 2
            let retention = RetentionService(storage: storage, policy: policy, clock: TestClock(now: Self.now))
            #expect(try await retention.run().auditEvents == 4)
            #expect(try await storage.audit.recent(limit: 100, usernameKey: nil).count == 3)
            #expect(try await retention.run().auditEvents == 3)
            #expect(try await retention.run().isEmpty)
        }
    }

    /// Authorization codes expired longer ago than ended sessions are kept go, used or not;
    /// a recent used one stays, so that its replay is still known as one.
    @Test func oldAuthorizationCodesGo() async throws {
        try await TestCluster.withStorage { storage in
            let settings = try OIDCClientSettings(redirectURIs: ["https://app.example.com/cb"])
            _ = try await ClientRegistry(storage: storage).register(id: "web-app", audiences: [], signIn: settings)
            let user = try await storage.users.create(username: try Username("ret"), passwordHash: "$argon2id$stored", at: Self.now)
            func code(_ name: String, expiring expiresAt: Date) async throws {
                try await storage.authorizationCodes.add(
                    AuthorizationCode(
                        codeHash: name, clientID: "web-app", userID: user.id, redirectURI: "https://app.example.com/cb", scopes: ["openid"],
                        nonce: nil, codeChallenge: nil, authTime: expiresAt, methods: ["pwd"], expiresAt: expiresAt))
            }
            try await code("old", expiring: Self.now.addingTimeInterval(-8 * Self.day))
            try await code("recent", expiring: Self.now.addingTimeInterval(-Self.day))
            _ = try await storage.authorizationCodes.redeem(codeHash: "recent", now: Self.now.addingTimeInterval(-Self.day))
            let deleted = try await RetentionService(storage: storage, policy: Self.policy, clock: TestClock(now: Self.now)).run()
            #expect(deleted.sessionRows == 1)
            #expect(try await storage.authorizationCodes.redeem(codeHash: "old", now: Self.now) == .unknown)
            #expect(
                try await storage.authorizationCodes.redeem(codeHash: "recent", now: Self.now) == .replayed(sessionID: nil, userID: user.id)
            )
        }
    }

    private static func check(_ storage: PostgresStorage) async throws -> Remains {
        let user = try await storage.users.create(username: try Username("ret"), passwordHash: "$argon2id$stored", at: now)
        // Audit: five events of 40 days ago, three of yesterday.
        for index in 0..<5 {
            try await storage.audit.record(
                SecurityEvent(kind: .loginFailed, at: now.addingTimeInterval(-40 * day + Double(index)), origin: RequestOrigin()))
        }
        for index in 0..<3 {
            try await storage.audit.record(
                SecurityEvent(
                    kind: .loginSucceeded, at: now.addingTimeInterval(-day + Double(index)), userID: user.id, origin: RequestOrigin()))
        }
        // Counters: one whose window began three days ago, one whose two-hour window began an
        // hour ago (used up).
        let stale = ThrottleKey(scope: .account, subject: "stale", limit: 1, window: 900)
        let recent = ThrottleKey(scope: .account, subject: "recent", limit: 1, window: 7_200)
        _ = try await storage.loginAttempts.reserve([stale], now: now.addingTimeInterval(-3 * day))
        _ = try await storage.loginAttempts.reserve([recent], now: now.addingTimeInterval(-3_600))
        // Known login addresses: one last used 31 days ago, one yesterday.
        let month = TimeInterval(ThrottlePolicy.knownAddressLifetime)
        let forgotten = ThrottleKey(scope: .pair, subject: "ret\u{0}192.0.2.1", limit: 1, window: 900)
        let remembered = ThrottleKey(scope: .pair, subject: "ret\u{0}192.0.2.2", limit: 10, window: 900)
        try await storage.loginAttempts.remember(forgotten, at: now.addingTimeInterval(-month - day))
        try await storage.loginAttempts.remember(remembered, at: now.addingTimeInterval(-day))
        // Sessions: one that ended ten days ago with three rotations; one revoked ten days
        // ago; a live one with a token that expired ten days ago and a live token.
        let ended = try await session(
            storage, user: user, started: now.addingTimeInterval(-100 * day), ends: now.addingTimeInterval(-10 * day), rotations: 3)
        let revoked = try await session(
            storage, user: user, started: now.addingTimeInterval(-20 * day), ends: now.addingTimeInterval(60 * day), rotations: 0)
        _ = try await storage.refreshTokens.revokeFamily(ofTokenHash: revoked, now: now.addingTimeInterval(-10 * day))
        let oldToken = RefreshTokenRecord(
            tokenHash: RefreshToken.generate().hash, familyID: UUID(), userID: user.id,
            expiresAt: now.addingTimeInterval(-10 * day), sessionExpiresAt: now.addingTimeInterval(60 * day)
        )
        try await storage.refreshTokens.store(oldToken)
        let live = try await session(
            storage, user: user, started: now.addingTimeInterval(-day), ends: now.addingTimeInterval(80 * day), rotations: 0)

        let deleted = try await RetentionService(storage: storage, policy: policy, clock: TestClock(now: now)).run()
        #expect(deleted.auditEvents == 5)
        #expect(deleted.loginCounters == 2)
        // Asked as far back as it was remembered, only the recent address is still known.
        let longAgo = now.addingTimeInterval(-10 * month)
        #expect(try await storage.loginAttempts.reserve([forgotten], ifKnown: forgotten, since: longAgo, now: now) == .unknown)
        // … and that counted nothing (its one attempt is still there to take).
        #expect(try await storage.loginAttempts.reserve([forgotten], now: now) == nil)
        #expect(try await storage.loginAttempts.reserve([remembered], ifKnown: remembered, since: longAgo, now: now) == .reserved)
        // Four tokens and the family of the ended session, the revoked one's token and family,
        // the expired token (its family lives on: it is not ended).
        #expect(deleted.sessionRows == 8)
        #expect(try await storage.audit.recent(limit: 100, usernameKey: nil).allSatisfy { $0.at > now.addingTimeInterval(-2 * day) })
        // The recent counter still refuses; the stale one's row is gone (a fresh count).
        let recentRefused = try await storage.loginAttempts.reserve([recent], now: now) != nil
        #expect(recentRefused)
        #expect(try await storage.refreshTokens.rotate(presentedHash: ended, successor: successor(), now: now) == .unknown)
        #expect(try await storage.refreshTokens.rotate(presentedHash: oldToken.tokenHash, successor: successor(), now: now) == .unknown)
        var rotated = 0
        if case .rotated = try await storage.refreshTokens.rotate(presentedHash: live, successor: successor(), now: now) { rotated += 1 }
        return Remains(
            events: try await storage.audit.recent(limit: 100, usernameKey: nil).count, counterAllowed: !recentRefused,
            liveTokensRotate: rotated)
    }

    private static func successor() -> RefreshSuccessor {
        RefreshSuccessor(tokenHash: RefreshToken.generate().hash, expiresAt: now.addingTimeInterval(600))
    }

    /// A session begun at `started`, ending at `ends`, rotated `rotations` times (each
    /// token living two days); returns its newest token's hash.
    private static func session(_ storage: some AuthStorage, user: User, started: Date, ends: Date, rotations: Int) async throws -> String {
        let first = RefreshTokenRecord(
            tokenHash: RefreshToken.generate().hash, familyID: UUID(), userID: user.id,
            expiresAt: min(started.addingTimeInterval(2 * day), ends), sessionExpiresAt: ends
        )
        try await storage.refreshTokens.store(first)
        var newest = first.tokenHash
        for step in 0..<rotations {
            let at = started.addingTimeInterval(Double(step) * 3_600)
            let next = RefreshSuccessor(tokenHash: RefreshToken.generate().hash, expiresAt: min(at.addingTimeInterval(2 * day), ends))
            guard case .rotated = try await storage.refreshTokens.rotate(presentedHash: newest, successor: next, now: at) else {
                Issue.record("rotation \(step) failed")
                break
            }
            newest = next.tokenHash
        }
        return newest
    }
}
