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
        reserve(keys, at: "\(now)")
    }

    /// `login_reserve` over `keys` at the time `time` (a value or a column) stands for.
    private static func reserve(_ keys: [ThrottleKey], at time: SQL) -> SQL {
        let scopes = keys.map(\.scope.rawValue)
        let digests = keys.map(\.subjectDigest)
        let limits = keys.map(\.limit)
        let windows = keys.map(\.window)
        let maxWindows = keys.map(\.maxWindow)
        return "login_reserve(\(scopes), \(digests), \(limits), \(windows), \(maxWindows), \(time))"
    }

    /// Remembers the pairs (a username from one address, as digests: none or one) at `date`,
    /// `when` the condition holds.
    static func remember(_ pairs: [ThrottleKey], at date: Date, when condition: SQL) -> SQL {
        """
        INSERT INTO known_login_addresses (subject_digest, last_login_at)
        SELECT digest, \(date) FROM unnest(\(pairs.map(\.subjectDigest))) AS digest WHERE \(condition)
        ON CONFLICT (subject_digest) DO UPDATE SET last_login_at = greatest(known_login_addresses.last_login_at, excluded.last_login_at)
        """
    }

    public func reserve(_ keys: [ThrottleKey], ifKnown pair: ThrottleKey, since: Date, now: Date) async throws -> KnownAddressReservation {
        // The reservation takes its time from the known row, so it runs only for one: a
        // function in FROM with constant arguments might be run before the join.
        try await database.query(
            """
            SELECT r.retry_after, r.first_refusal
            FROM (SELECT \(now)::timestamptz AS at FROM known_login_addresses
                  WHERE subject_digest = \(pair.subjectDigest) AND last_login_at >= \(since)) AS known
            CROSS JOIN LATERAL \(Self.reserve(keys, at: "known.at")) AS r
            """
        ) { rows in
            var outcome = KnownAddressReservation.unknown
            for try await (wait, first) in rows.decode((Int?, Bool?).self) {
                outcome = wait.map { .refused(ThrottleRefusal(retryAfter: $0, isFirst: first ?? false)) } ?? .reserved
            }
            return outcome
        }
    }

    public func remember(_ pair: ThrottleKey, at date: Date) async throws {
        try await database.execute(Self.remember([pair], at: date, when: "true"))
    }

    public func forgetKnownAddresses(before date: Date, limit: Int) async throws -> Int {
        try await database.countingChanges(
            """
            DELETE FROM known_login_addresses WHERE subject_digest = ANY(ARRAY(
                SELECT subject_digest FROM known_login_addresses WHERE last_login_at < \(date) LIMIT \(limit) FOR UPDATE SKIP LOCKED
            ))
            """
        )
    }

    /// Resets the counters of `cleared` and gives one attempt back to each of `released`,
    /// locking them in order first (`login_release`).
    static func release(_ released: [ThrottleKey], clearing cleared: [ThrottleKey]) -> SQL {
        """
        login_release(\(cleared.map(\.scope.rawValue)), \(cleared.map(\.subjectDigest)), \(released.map(\.scope.rawValue)), \
        \(released.map(\.subjectDigest)))
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
        try await database.execute("SELECT \(Self.release(released, clearing: cleared))")
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
