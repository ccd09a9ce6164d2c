import AuthCore
import Foundation
import PostgresNIO

/// Login challenges in `login_challenges` (migration 0014), by the digest of the token the
/// client holds. Taking one is a single guarded update, so it succeeds once.
///
/// ```swift
/// let challenges = PostgresLoginChallengeRepository(database: database)
/// let taken = try await challenges.take(tokenHash: hash, kind: .secondFactor, now: Date())
/// ```
public struct PostgresLoginChallengeRepository: LoginChallengeRepository {
    /// The database.
    public let database: Database

    /// Creates the repository.
    public init(database: Database) {
        self.database = database
    }

    public func store(_ challenge: LoginChallenge) async throws {
        try await database.execute(
            """
            INSERT INTO login_challenges (\(Self.columns))
            VALUES (\(challenge.tokenHash), \(challenge.kind.rawValue), \(challenge.userID), \(challenge.passwordHash),
                    \(challenge.createdAt), \(challenge.expiresAt), \(challenge.attemptsLeft))
            """
        )
    }

    public func challenge(tokenHash: String, kind: LoginChallenge.Kind, now: Date) async throws -> LoginChallenge? {
        try await first("SELECT \(Self.columns) FROM login_challenges WHERE \(Self.working(tokenHash: tokenHash, kind: kind, now: now))")
    }

    public func reserveAttempt(tokenHash: String, kind: LoginChallenge.Kind, now: Date) async throws -> LoginChallenge? {
        // Concurrent reservations queue on the row's lock; each sees the count the one before left.
        try await first(
            """
            UPDATE login_challenges SET attempts_left = attempts_left - 1
            WHERE \(Self.working(tokenHash: tokenHash, kind: kind, now: now))
            RETURNING \(Self.columns)
            """
        )
    }

    public func take(tokenHash: String, kind: LoginChallenge.Kind, now: Date) async throws -> LoginChallenge? {
        // A second taker waits for the first's row lock, then finds it used.
        try await first(
            """
            UPDATE login_challenges SET used_at = \(now)
            WHERE \(Self.unused(tokenHash: tokenHash, kind: kind, now: now)) RETURNING \(Self.columns)
            """
        )
    }

    public func deleteEnded(before date: Date, limit: Int) async throws -> Int {
        try await database.countingChanges(
            """
            DELETE FROM login_challenges WHERE token_hash = ANY(ARRAY(
                SELECT token_hash FROM login_challenges WHERE expires_at < \(date) OR used_at < \(date)
                LIMIT \(limit) FOR UPDATE SKIP LOCKED
            ))
            """
        )
    }

    private static let columns: SQL = "token_hash, kind, user_id, password_hash, created_at, expires_at, attempts_left"

    /// The first challenge `statement` returns (in ``columns``' order).
    private func first(_ statement: SQL) async throws -> LoginChallenge? {
        try await database.query(statement) { rows in
            for try await (tokenHash, kind, userID, passwordHash, createdAt, expiresAt, attemptsLeft)
                in rows.decode((String, String, UUID?, String?, Date, Date, Int32).self)
            {
                guard let kind = LoginChallenge.Kind(rawValue: kind) else { return nil }
                return LoginChallenge(
                    tokenHash: tokenHash, kind: kind, userID: userID, passwordHash: passwordHash, createdAt: createdAt,
                    expiresAt: expiresAt, attemptsLeft: Int(attemptsLeft)
                )
            }
            return nil
        }
    }

    /// The condition that picks the challenge while it still works.
    private static func working(tokenHash: String, kind: LoginChallenge.Kind, now: Date) -> SQL {
        "\(unused(tokenHash: tokenHash, kind: kind, now: now)) AND attempts_left > 0"
    }

    /// The condition that picks the challenge while it is unused and unexpired.
    private static func unused(tokenHash: String, kind: LoginChallenge.Kind, now: Date) -> SQL {
        "token_hash = \(tokenHash) AND kind = \(kind.rawValue) AND used_at IS NULL AND expires_at > \(now)"
    }
}
