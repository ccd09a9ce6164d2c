import AuthCore
import Foundation
import PostgresNIO

/// Failed-login counters in the `login_failures` table, in fixed windows, so every authd
/// instance on the same database sees the same counts.
///
/// ```swift
/// let attempts = PostgresLoginAttemptStore(database: database)
/// try await attempts.recordFailure(for: keys, now: Date())
/// ```
public struct PostgresLoginAttemptStore: LoginAttemptStore {
    /// The database.
    public let database: Database

    /// Creates the store.
    public init(database: Database) {
        self.database = database
    }

    /// The seconds to wait when any of `keys` is over its limit, else NULL: an expression.
    static func retryAfter(_ keys: [ThrottleKey], now: Date) -> SQL {
        let keys = Keys(keys)
        return "login_retry_after(\(keys.scopes), \(keys.digests), \(keys.limits), \(keys.windows), \(now))"
    }

    /// Clears the counter of `key`.
    static func clear(_ key: ThrottleKey) -> SQL {
        "DELETE FROM login_failures WHERE scope = \(key.scope.rawValue) AND subject_digest = \(key.subjectDigest)"
    }

    public func retryAfter(for keys: [ThrottleKey], now: Date) async throws -> Int? {
        try await database.query("SELECT \(Self.retryAfter(keys, now: now))") { rows in
            var wait: Int?
            for try await seconds in rows.decode(Int?.self) { wait = seconds }
            return wait
        }
    }

    /// Throttle keys as the columns `login_retry_after` and failure recording take.
    struct Keys: Sendable {
        let scopes: [String]
        let digests: [String]
        let limits: [Int]
        let windows: [Int]

        init(_ keys: [ThrottleKey]) {
            scopes = keys.map(\.scope.rawValue)
            digests = keys.map(\.subjectDigest)
            limits = keys.map(\.limit)
            windows = keys.map(\.window)
        }
    }

    public func recordFailure(for keys: [ThrottleKey], now: Date) async throws {
        let keys = Keys(keys)
        // One statement for every key: counters in their window are incremented, expired
        // ones restart at 1, missing ones are created (a concurrent creation just counts).
        try await database.execute(
            """
            WITH k AS (
                SELECT * FROM unnest(\(keys.scopes)::text[], \(keys.digests)::text[], \(keys.windows)::bigint[])
                    AS k(scope, digest, window_seconds)
            ), updated AS (
                UPDATE login_failures f SET
                    failures = CASE WHEN f.window_start + make_interval(secs => k.window_seconds) <= \(now)
                                    THEN 1 ELSE f.failures + 1 END,
                    window_start = CASE WHEN f.window_start + make_interval(secs => k.window_seconds) <= \(now)
                                        THEN \(now) ELSE f.window_start END
                FROM k WHERE f.scope = k.scope AND f.subject_digest = k.digest
                RETURNING f.scope, f.subject_digest
            )
            INSERT INTO login_failures AS f (scope, subject_digest, failures, window_start)
            SELECT k.scope, k.digest, 1, \(now) FROM k
            WHERE NOT EXISTS (SELECT 1 FROM updated u WHERE u.scope = k.scope AND u.subject_digest = k.digest)
            ON CONFLICT (scope, subject_digest) DO UPDATE SET failures = f.failures + 1
            """
        )
    }

    public func reset(_ key: ThrottleKey) async throws {
        try await database.execute(Self.clear(key))
    }
}
