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

    public func retryAfter(for keys: [ThrottleKey], now: Date) async throws -> Int? {
        let logger = database.logger
        return try await database.run { client in
            var wait: Int?
            for key in keys {
                let rows = try await client.query(
                    """
                    SELECT ceil(extract(epoch FROM window_start + make_interval(secs => \(key.window)) - \(now)))::bigint
                    FROM login_failures
                    WHERE scope = \(key.scope.rawValue) AND subject_digest = \(key.subjectDigest)
                      AND failures >= \(key.limit)
                      AND window_start + make_interval(secs => \(key.window)) > \(now)
                    """,
                    logger: logger
                )
                for try await seconds in rows.decode(Int.self) {
                    wait = max(wait ?? 0, seconds)
                }
            }
            return wait
        }
    }

    public func recordFailure(for keys: [ThrottleKey], now: Date) async throws {
        let logger = database.logger
        try await database.run { client in
            for key in keys {
                try await client.query(
                    """
                    INSERT INTO login_failures AS f (scope, subject_digest, failures, window_start)
                    VALUES (\(key.scope.rawValue), \(key.subjectDigest), 1, \(now))
                    ON CONFLICT (scope, subject_digest) DO UPDATE SET
                        failures = CASE WHEN f.window_start + make_interval(secs => \(key.window)) <= \(now)
                                        THEN 1 ELSE f.failures + 1 END,
                        window_start = CASE WHEN f.window_start + make_interval(secs => \(key.window)) <= \(now)
                                            THEN \(now) ELSE f.window_start END
                    """,
                    logger: logger
                )
            }
        }
    }

    public func reset(_ key: ThrottleKey) async throws {
        let logger = database.logger
        try await database.run { client in
            _ = try await client.query(
                "DELETE FROM login_failures WHERE scope = \(key.scope.rawValue) AND subject_digest = \(key.subjectDigest)",
                logger: logger
            )
        }
    }
}
