import AuthCore
import Foundation
import PostgresNIO

/// Accounts in the `users` table.
///
/// ```swift
/// let users = PostgresUserRepository(database: database)
/// let alice = try await users.create(username: try Username("alice"), passwordHash: phc)
/// ```
public struct PostgresUserRepository: UserRepository {
    /// The database.
    public let database: Database

    /// Creates the repository.
    public init(database: Database) {
        self.database = database
    }

    public func user(withKey key: String) async throws -> User? {
        try await firstUser("SELECT id, username, password_hash, disabled_at, created_at FROM users WHERE username_key = \(key)")
    }

    public func user(withID id: UUID) async throws -> User? {
        try await firstUser("SELECT id, username, password_hash, disabled_at, created_at FROM users WHERE id = \(id)")
    }

    /// The first account `query` returns; it selects id, username, password_hash,
    /// disabled_at and created_at.
    private func firstUser(_ query: PostgresQuery) async throws -> User? {
        let logger = database.logger
        return try await database.run { client in
            let rows = try await client.query(query, logger: logger)
            for try await row in rows.decode((UUID, String, String, Date?, Date).self) {
                return User(id: row.0, username: row.1, passwordHash: row.2, isDisabled: row.3 != nil, createdAt: row.4)
            }
            return nil
        }
    }

    public func create(username: Username, passwordHash: String) async throws -> User {
        let logger = database.logger
        let id = UUID()
        do {
            return try await database.run { client in
                let rows = try await client.query(
                    """
                    INSERT INTO users (id, username, username_key, password_hash)
                    VALUES (\(id), \(username.value), \(username.key), \(passwordHash))
                    RETURNING created_at
                    """,
                    logger: logger
                )
                var createdAt = Date()
                for try await (value) in rows.decode(Date.self) { createdAt = value }
                return User(id: id, username: username.value, passwordHash: passwordHash, isDisabled: false, createdAt: createdAt)
            }
        } catch where Database.sqlState(of: error) == "23505" {
            throw RepositoryError.duplicateUsername
        }
    }

    public func replacePasswordHash(userID: UUID, old: String, new: String) async throws {
        let logger = database.logger
        try await database.run { client in
            _ = try await client.query(
                "UPDATE users SET password_hash = \(new) WHERE id = \(userID) AND password_hash = \(old)",
                logger: logger
            )
        }
    }

    public func resetPassword(usernameKey: String, passwordHash: String) async throws -> Bool {
        try await updateReturningFound(
            """
            UPDATE users SET password_hash = \(passwordHash), disabled_at = NULL
            WHERE username_key = \(usernameKey)
            RETURNING id
            """
        )
    }

    public func setDisabled(_ disabled: Bool, usernameKey: String) async throws -> Bool {
        try await updateReturningFound(
            """
            UPDATE users
            SET disabled_at = CASE WHEN \(disabled) THEN coalesce(disabled_at, now()) ELSE NULL END
            WHERE username_key = \(usernameKey)
            RETURNING id
            """
        )
    }

    /// Runs an `UPDATE … RETURNING id`; true when it touched a row.
    private func updateReturningFound(_ query: PostgresQuery) async throws -> Bool {
        let logger = database.logger
        return try await database.run { client in
            var found = false
            for try await _ in try await client.query(query, logger: logger).decode(UUID.self) { found = true }
            return found
        }
    }

    public func all() async throws -> [User] {
        let logger = database.logger
        return try await database.run { client in
            let rows = try await client.query(
                "SELECT id, username, password_hash, disabled_at, created_at FROM users ORDER BY created_at, username_key",
                logger: logger
            )
            var users: [User] = []
            for try await row in rows.decode((UUID, String, String, Date?, Date).self) {
                users.append(User(id: row.0, username: row.1, passwordHash: row.2, isDisabled: row.3 != nil, createdAt: row.4))
            }
            return users
        }
    }
}
