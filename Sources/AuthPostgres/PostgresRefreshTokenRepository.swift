import AuthCore
import Foundation
import PostgresNIO

/// Refresh tokens in the `refresh_tokens` table (hashes only).
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

    public func store(_ record: RefreshTokenRecord) async throws {
        let logger = database.logger
        try await database.run { client in
            _ = try await client.query(
                """
                INSERT INTO refresh_tokens (token_hash, family_id, user_id, expires_at)
                VALUES (\(record.tokenHash), \(record.familyID), \(record.userID), \(record.expiresAt))
                """,
                logger: logger
            )
        }
    }
}
