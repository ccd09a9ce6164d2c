import Foundation

/// Deletes what ``RetentionPolicy`` no longer keeps, in batches of
/// ``RetentionPolicy/batchSize`` rows, at most ``RetentionPolicy/maxBatchesPerRun`` per
/// table and run. Several instances may run it at once: each batch skips rows another
/// holds.
///
/// ```swift
/// let retention = RetentionService(storage: storage, policy: RetentionPolicy(), clock: clock)
/// let deleted = try await retention.run()
/// print(deleted.auditEvents, deleted.loginCounters, deleted.sessionRows)
/// ```
public struct RetentionService<Storage: AuthStorage>: Sendable {
    /// Where the rows are.
    public let storage: Storage
    /// What is kept.
    public let policy: RetentionPolicy
    /// The time the periods count back from.
    public let clock: any WallClock
    /// Where the deletions are counted.
    public let metrics: AuthMetrics

    /// Creates the service.
    public init(storage: Storage, policy: RetentionPolicy, clock: any WallClock = SystemClock(), metrics: AuthMetrics = AuthMetrics()) {
        self.storage = storage
        self.policy = policy
        self.clock = clock
        self.metrics = metrics
    }

    /// Rows one run deleted, per table.
    public struct Deleted: Sendable, Equatable {
        /// Audit events.
        public var auditEvents = 0
        /// Login-attempt counters and known login addresses.
        public var loginCounters = 0
        /// Refresh tokens and sessions together.
        public var sessionRows = 0
        /// Used or expired account tokens, and messages delivered or given up.
        public var recoveryRows = 0

        /// Whether anything was deleted.
        public var isEmpty: Bool { auditEvents + loginCounters + sessionRows + recoveryRows == 0 }
    }

    /// One run: each table's old rows, batch by batch, until a batch comes back short or
    /// the run's batches are spent.
    @discardableResult
    public func run() async throws -> Deleted {
        let now = clock.now
        var deleted = Deleted()
        deleted.auditEvents = try await batches(counted: "audit_events") { limit in
            try await storage.audit.deleteEvents(before: now.addingTimeInterval(-TimeInterval(policy.auditEvents)), limit: limit)
        }
        deleted.loginCounters = try await batches(counted: "login_failures") { limit in
            try await storage.loginAttempts.deleteCounters(
                startedBefore: now.addingTimeInterval(-TimeInterval(policy.loginCounters)), limit: limit)
        }
        // A known address is kept as long as it exempts a login.
        deleted.loginCounters += try await batches(counted: "known_login_addresses") { limit in
            try await storage.loginAttempts.forgetKnownAddresses(
                before: now.addingTimeInterval(-TimeInterval(ThrottlePolicy.knownAddressLifetime)), limit: limit
            )
        }
        deleted.sessionRows = try await batches(counted: "sessions") { limit in
            try await storage.refreshTokens.deleteEnded(before: now.addingTimeInterval(-TimeInterval(policy.endedSessions)), limit: limit)
        }
        // Ended tokens and finished messages are kept as long as ended sessions.
        deleted.recoveryRows = try await batches(counted: "account_tokens") { limit in
            try await storage.accountTokens.deleteEnded(before: now.addingTimeInterval(-TimeInterval(policy.endedSessions)), limit: limit)
        }
        deleted.recoveryRows += try await batches(counted: "deliveries") { limit in
            try await storage.outbox.deleteFinished(before: now.addingTimeInterval(-TimeInterval(policy.endedSessions)), limit: limit)
        }
        // Login challenges live minutes; the ended ones go with ended sessions.
        deleted.sessionRows += try await batches(counted: "login_challenges") { limit in
            try await storage.loginChallenges.deleteEnded(before: now.addingTimeInterval(-TimeInterval(policy.endedSessions)), limit: limit)
        }
        // So do authorization codes: a used one is kept that long to refuse its replay.
        deleted.sessionRows += try await batches(counted: "authorization_codes") { limit in
            try await storage.authorizationCodes.deleteEnded(
                before: now.addingTimeInterval(-TimeInterval(policy.endedSessions)), limit: limit)
        }
        // A used ID token is remembered until it expires, to refuse its replay.
        deleted.sessionRows += try await batches(counted: "used_id_tokens") { limit in
            try await storage.identities.deleteExpired(before: now, limit: limit)
        }
        // A client's revoked token is remembered until it expires.
        deleted.sessionRows += try await batches(counted: "revoked_client_tokens") { limit in
            try await storage.clients.deleteExpiredRevocations(before: now, limit: limit)
        }
        return deleted
    }

    /// Batches of `deleteBatch` until one comes back short; each batch counted in the
    /// metric of `table` as soon as it is done.
    private func batches(counted table: String, _ deleteBatch: (Int) async throws -> Int) async throws -> Int {
        var total = 0
        for _ in 0..<max(policy.maxBatchesPerRun, 1) {
            let count = try await deleteBatch(policy.batchSize)
            metrics.retentionDeleted(table: table, count: count)
            total += count
            if count < policy.batchSize { break }
        }
        return total
    }
}
