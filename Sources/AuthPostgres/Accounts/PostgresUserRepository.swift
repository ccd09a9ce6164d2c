import AuthCore
import Foundation
import PostgresNIO

/// Accounts in the `users` table. Each statement on the table is written here once; the
/// login's combined statement (``PostgresStorage``) splices in ``select(key:)``.
///
/// ```swift
/// let users = PostgresUserRepository(database: database)
/// let alice = try await users.create(username: try Username("alice"), passwordHash: phc, at: Date())
/// ```
public struct PostgresUserRepository: UserRepository {
    /// The database.
    public let database: Database

    /// Creates the repository.
    public init(database: Database) {
        self.database = database
    }

    /// The columns every read of an account returns, in the order of ``Row``.
    static let columns: SQL = "id, username, password_hash, disabled_at, created_at, email, email_verified_at"

    /// An account's columns; nullable so that an outer join's missing account decodes too.
    typealias Row = (UUID?, String?, String?, Date?, Date?, String?, Date?)

    /// The account in `row`, nil when the row holds none.
    static func user(_ row: Row) -> User? {
        guard let id = row.0, let username = row.1, let hash = row.2, let createdAt = row.4 else { return nil }
        return User(
            id: id, username: username, passwordHash: hash, isDisabled: row.3 != nil, createdAt: createdAt, email: row.5,
            emailVerifiedAt: row.6
        )
    }

    /// The account whose username key is `key`.
    static func select(key: String) -> SQL {
        "SELECT \(columns) FROM users WHERE username_key = \(key)"
    }

    /// The account `id` if it still has `passwordHash` and is enabled, share-locked until
    /// the statement's transaction ends (a concurrent password change waits for it).
    static func lockUnchanged(id: UUID, passwordHash: String) -> SQL {
        "SELECT id FROM users WHERE \(unchanged(CheckedAccount(userID: id, passwordHash: passwordHash))) FOR SHARE"
    }

    public func user(withKey key: String) async throws -> User? {
        try await first(Self.select(key: key))
    }

    /// Prepared: relying parties' introspection reads the account a token names.
    public func user(withID id: UUID) async throws -> User? {
        try await database.query(UserByIDStatement(id: id)) { rows in
            for try await row in rows { return Self.user(try row.decode(Row.self)) }
            return nil
        }
    }

    /// An account by id while a session of it is live: the statement of every request with
    /// a user's access token (``PostgresStorage/user(withID:inSession:now:)``).
    struct UserInSessionStatement: PreparedSQL {
        static let sql = Self(id: UUID(), session: UUID(), now: Date()).statement.text
        var id: UUID
        var session: UUID
        var now: Date
        var statement: SQL {
            """
            SELECT \(PostgresUserRepository.columns) FROM users
            WHERE id = \(id) AND EXISTS (
                SELECT 1 FROM refresh_families WHERE id = \(session) AND user_id = \(id) AND \(PostgresRefreshTokenRepository.live(at: now))
            )
            """
        }
    }

    /// An account by id.
    struct UserByIDStatement: PreparedSQL {
        static let sql = Self(id: UUID()).statement.text
        var id: UUID
        var statement: SQL { "SELECT \(PostgresUserRepository.columns) FROM users WHERE id = \(id)" }
    }

    public func create(username: Username, email: EmailAddress?, passwordHash: String, at: Date) async throws -> User {
        try await inserted(
            """
            INSERT INTO users (id, username, username_key, password_hash, created_at, email, email_key)
            VALUES (\(UUID()), \(username.value), \(username.key), \(passwordHash), \(at), \(email?.value), \(email?.key))
            RETURNING \(Self.columns)
            """
        )
    }

    /// The account `insert` made; a taken name or address as ``RepositoryError``.
    private func inserted(_ insert: SQL) async throws -> User {
        do {
            guard let created = try await first(insert) else { throw PostgresRowError.noRowReturned }
            return created
        } catch  where Database.sqlState(of: error) == "23505" {
            throw Database.constraint(of: error) == "users_email_key_unique"
                ? RepositoryError.duplicateEmail : RepositoryError.duplicateUsername
        }
    }

    public func user(withEmailKey key: String) async throws -> User? {
        try await first("SELECT \(Self.columns) FROM users WHERE email_key = \(key)")
    }

    public func createWithoutPassword(username: Username, email: EmailAddress?, emailVerifiedAt: Date?, passwordHash: String, at: Date)
        async throws -> User
    {
        try await inserted(
            """
            INSERT INTO users (id, username, username_key, password_hash, has_password, created_at, email, email_key, email_verified_at)
            VALUES (
                \(UUID()), \(username.value), \(username.key), \(passwordHash), false, \(at), \(email?.value), \(email?.key),
                \(email == nil ? nil : emailVerifiedAt)
            )
            RETURNING \(Self.columns)
            """
        )
    }

    public func releaseUnverifiedEmail(key: String) async throws -> User? {
        try await first(
            """
            UPDATE users SET email = NULL, email_key = NULL
            WHERE email_key = \(key) AND email_verified_at IS NULL
            RETURNING \(Self.columns)
            """
        )
    }

    public func replacePasswordHash(userID: UUID, old: String, new: String) async throws {
        try await database.execute("UPDATE users SET password_hash = \(new) WHERE id = \(userID) AND password_hash = \(old)")
    }

    public func setDisabled(_ disabled: Bool, usernameKey: String, at: Date) async throws -> User? {
        try await first(
            """
            UPDATE users
            SET disabled_at = CASE WHEN \(disabled) THEN coalesce(disabled_at, \(at)) ELSE NULL END
            WHERE username_key = \(usernameKey)
            RETURNING \(Self.columns)
            """
        )
    }

    public func delete(usernameKey: String) async throws -> User? {
        // Refresh tokens go with the account (ON DELETE CASCADE).
        try await first("DELETE FROM users WHERE username_key = \(usernameKey) RETURNING \(Self.columns)")
    }

    public func delete(_ checked: CheckedAccount) async throws -> User? {
        try await first("DELETE FROM users WHERE \(Self.unchanged(checked)) RETURNING \(Self.columns)")
    }

    public func deleteWithoutPassword(_ checked: CheckedAccount) async throws -> User? {
        try await first("DELETE FROM users WHERE \(Self.unchanged(checked)) AND NOT has_password RETURNING \(Self.columns)")
    }

    /// The condition on `users` that picks the account `checked` names while it is as the
    /// check saw it: the same password hash, still enabled.
    static func unchanged(_ checked: CheckedAccount) -> SQL {
        "id = \(checked.userID) AND password_hash = \(checked.passwordHash) AND disabled_at IS NULL"
    }

    public func passwordHashParameters() async throws -> [Argon2idHasher.Parameters] {
        // $argon2id$v=19$m=…,t=…,p=…$salt$hash: the fourth field.
        try await database.query("SELECT DISTINCT split_part(password_hash, '$', 4) FROM users WHERE password_hash LIKE '$argon2id$%'") {
            rows in
            var parameters: [Argon2idHasher.Parameters] = []
            for try await text in rows.decode(String.self) {
                if let set = Argon2idHasher.Parameters(phcParameters: Substring(text)) { parameters.append(set) }
            }
            return parameters
        }
    }

    public func all() async throws -> [User] {
        try await database.query("SELECT \(Self.columns) FROM users ORDER BY created_at, username_key") { rows in
            var users: [User] = []
            for try await row in rows.decode(Row.self) {
                if let user = Self.user(row) { users.append(user) }
            }
            return users
        }
    }

    /// The first account `statement` returns.
    private func first(_ statement: SQL) async throws -> User? {
        try await database.query(statement) { rows in
            for try await row in rows.decode(Row.self) { return Self.user(row) }
            return nil
        }
    }
}

/// A statement that must return a row returned none.
struct PostgresRowError: Error, CustomStringConvertible {
    static let noRowReturned = PostgresRowError()
    var description: String { "the statement returned no row" }
}
