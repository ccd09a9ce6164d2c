import AuthCore
import Foundation
import PostgresNIO

/// Refresh tokens in the `refresh_tokens` table (hashes only). Each statement on the table
/// is written here once; the login's combined statement (``PostgresStorage``) splices in
/// ``insert(_:)``.
///
/// ```swift
/// try await PostgresRefreshTokenRepository(database: database).store(record)
/// ```
public struct PostgresRefreshTokenRepository: RefreshTokenRepository {
    /// The database.
    public let database: Database

    /// Creates the repository.
    public init(database: Database) {
        self.database = database
    }

    /// Stores a newly issued token.
    static func insert(_ record: RefreshTokenRecord) -> SQL {
        """
        INSERT INTO refresh_tokens (token_hash, family_id, user_id, expires_at)
        VALUES (\(record.tokenHash), \(record.familyID), \(record.userID), \(record.expiresAt))
        """
    }

    public func store(_ record: RefreshTokenRecord) async throws {
        try await database.execute(Self.insert(record))
    }

    public func rotate(presentedHash: String, successor: RefreshSuccessor, now: Date) async throws -> RefreshRotation {
        try await database.query(
            """
            SELECT outcome, owner FROM rotate_refresh_token(
                \(presentedHash), \(successor.tokenHash), \(successor.expiresAt), \(now))
            """
        ) { rows in
            for try await (outcome, owner) in rows.decode((String, UUID?).self) {
                switch (outcome, owner) {
                case ("rotated", let owner?): return .rotated(userID: owner)
                case ("reused", let owner?): return .reused(userID: owner)
                case ("disabled", let owner?): return .disabled(userID: owner)
                case ("expired", _): return .expired
                case ("revoked", _): return .revoked
                default: return .unknown
                }
            }
            return .unknown
        }
    }

    public func revokeFamily(ofTokenHash tokenHash: String, now: Date) async throws -> UUID? {
        try await database.query(
            """
            WITH presented AS (SELECT family_id, user_id FROM refresh_tokens WHERE token_hash = \(tokenHash)),
                 revoked AS (
                     UPDATE refresh_tokens SET revoked_at = \(now)
                     WHERE family_id = (SELECT family_id FROM presented) AND revoked_at IS NULL
                 )
            SELECT user_id FROM presented
            """
        ) { rows in
            for try await owner in rows.decode(UUID.self) { return owner }
            return nil
        }
    }
}
