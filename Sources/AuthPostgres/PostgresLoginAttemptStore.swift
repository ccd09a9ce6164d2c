import AuthCore
import Foundation
import PostgresNIO

/// Login-attempt counters in the `login_failures` table, so every authd instance on the
/// same database sees the same counts. An attempt is reserved by `login_reserve`
/// (migration 0009), which locks the keys' rows first: simultaneous logins on one key
/// queue behind each other and never read the same count.
///
/// ```swift
/// let attempts = PostgresLoginAttemptStore(database: database)
/// if let refusal = try await attempts.reserve(keys.all, now: Date()) { print(refusal.retryAfter) }
/// ```
public struct PostgresLoginAttemptStore: LoginAttemptStore {
    /// The database.
    public let database: Database

    /// Creates the store.
    public init(database: Database) {
        self.database = database
    }

    /// Reserves an attempt against `keys`: a row source of one row, `(retry_after,
    /// first_refusal)`, both NULL when the attempt was counted.
    static func reserve(_ keys: [ThrottleKey], now: Date) -> SQL {
        let scopes = keys.map(\.scope.rawValue), digests = keys.map(\.subjectDigest)
        let limits = keys.map(\.limit), windows = keys.map(\.window), maxWindows = keys.map(\.maxWindow)
        return "login_reserve(\(scopes), \(digests), \(limits), \(windows), \(maxWindows), \(now))"
    }

    /// Deletes the counters of `keys`.
    static func clear(_ keys: [ThrottleKey]) -> SQL {
        "DELETE FROM login_failures WHERE (scope, subject_digest) IN (SELECT * FROM unnest(\(keys.map(\.scope.rawValue)), \(keys.map(\.subjectDigest))))"
    }

    /// Gives one attempt back to each of `keys`.
    static func giveBack(_ keys: [ThrottleKey]) -> SQL {
        """
        UPDATE login_failures SET failures = greatest(failures - 1, 0)
        WHERE (scope, subject_digest) IN (SELECT * FROM unnest(\(keys.map(\.scope.rawValue)), \(keys.map(\.subjectDigest))))
        """
    }

    public func reserve(_ keys: [ThrottleKey], now: Date) async throws -> ThrottleRefusal? {
        try await database.query("SELECT retry_after, first_refusal FROM \(Self.reserve(keys, now: now))") { rows in
            var refusal: ThrottleRefusal?
            for try await (wait, first) in rows.decode((Int?, Bool?).self) {
                refusal = wait.map { ThrottleRefusal(retryAfter: $0, isFirst: first ?? false) }
            }
            return refusal
        }
    }

    public func release(_ released: [ThrottleKey], clearing cleared: [ThrottleKey]) async throws {
        try await database.execute("WITH cleared AS (\(Self.clear(cleared))) \(Self.giveBack(released))")
    }

    public func deleteCounters(startedBefore date: Date, limit: Int) async throws -> Int {
        // A counter a login holds is skipped, not waited for: the next run takes it.
        try await database.countingChanges(
            """
            DELETE FROM login_failures WHERE ctid = ANY(ARRAY(
                SELECT ctid FROM login_failures WHERE window_start < \(date) LIMIT \(limit) FOR UPDATE SKIP LOCKED
            ))
            """
        )
    }
}
