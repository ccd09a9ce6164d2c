import AuthCore
import Foundation
import NIOCore
import PostgresNIO

/// Account tokens in `account_tokens` and their messages in `deliveries` (migration 0013).
/// Each operation is one transaction: a token is issued with its message, and a reset uses
/// its token, sets the password, uses up the other links and ends the sessions together.
///
/// ```swift
/// let tokens = PostgresAccountTokenRepository(database: database)
/// let owner = try await tokens.owner(ofTokenHash: digest, purpose: .passwordReset, now: Date())
/// ```
public struct PostgresAccountTokenRepository: AccountTokenRepository {
    /// The database.
    public let database: Database

    /// Creates the repository.
    public init(database: Database) {
        self.database = database
    }

    /// The condition on `users` that picks the account `selector` names.
    static func matching(_ selector: AccountSelector) -> SQL {
        switch selector {
        case .username(let name): "username_key = \(name.key)"
        case .email(let address): "email_key = \(address.key)"
        case .id(let id): "id = \(id)"
        }
    }

    public func issue(_ issue: AccountTokenIssue) async throws -> User? {
        let needsEmail: Bool = issue.purpose == .emailVerification
        let signsIn: Bool = issue.purpose == .emailSignIn
        // An address of the token's own (an email change's) is used only while no account has
        // it. A sign-in goes only to a verified address, and ends the account's earlier ones.
        return try await firstUser(
            """
            WITH account AS (
                     SELECT id, coalesce(\(issue.address?.value), email) AS email FROM users
                     WHERE \(Self.matching(issue.account)) AND disabled_at IS NULL AND (email IS NOT NULL OR NOT \(needsEmail))
                       AND (email_verified_at IS NOT NULL OR NOT \(signsIn))
                       AND NOT EXISTS (SELECT 1 FROM users WHERE email_key = \(issue.address?.key))
                 ),
                 superseded AS (
                     UPDATE account_tokens SET used_at = \(issue.createdAt)
                     WHERE \(signsIn) AND purpose = 'email_sign_in' AND used_at IS NULL AND user_id IN (SELECT id FROM account)
                 ),
                 token AS (
                     INSERT INTO account_tokens (token_hash, purpose, user_id, email, email_key, created_at, expires_at)
                     SELECT \(issue.tokenHash), \(issue.purpose.rawValue), id, email, \(issue.address?.key), \(issue.createdAt),
                            \(issue.expiresAt)
                     FROM account
                 ),
                 message AS (
                     INSERT INTO deliveries (kind, user_id, email, sealed_token, created_at, expires_at, next_attempt_at)
                     SELECT \(issue.purpose.rawValue), id, email, \(ByteBuffer(bytes: issue.sealedToken)), \(issue.createdAt),
                            \(issue.expiresAt), \(issue.createdAt)
                     FROM account
                 )
            SELECT \(PostgresUserRepository.columns) FROM users WHERE id IN (SELECT id FROM account)
            """
        )
    }

    public func owner(ofTokenHash tokenHash: String, purpose: AccountTokenPurpose, now: Date) async throws -> UUID? {
        try await database.query(
            """
            SELECT user_id FROM account_tokens
            WHERE token_hash = \(tokenHash) AND purpose = \(purpose.rawValue) AND used_at IS NULL AND expires_at > \(now)
            """
        ) { rows in
            for try await id in rows.decode(UUID.self) { return id }
            return nil
        }
    }

    public func resetPassword(tokenHash: String, passwordHash: String, now: Date) async throws -> (user: User, revoked: Int)? {
        // A second use of the token waits for the first's row lock, then finds it used.
        try await setPassword(
            """
            WITH token AS (
                     UPDATE account_tokens SET used_at = \(now)
                     WHERE token_hash = \(tokenHash) AND purpose = 'password_reset' AND used_at IS NULL AND expires_at > \(now)
                     RETURNING user_id
                 )
            UPDATE users SET password_hash = \(passwordHash), has_password = true WHERE id IN (SELECT user_id FROM token)
            RETURNING \(PostgresUserRepository.columns)
            """,
            now: now
        )
    }

    public func setPassword(_ change: PasswordChange) async throws -> (user: User, revoked: Int)? {
        let condition: SQL =
            change.replacing.map { PostgresUserRepository.unchanged(CheckedAccount(userID: change.userID, passwordHash: $0)) }
            ?? "id = \(change.userID)"
        return try await setPassword(
            "UPDATE users SET password_hash = \(change.passwordHash), has_password = true WHERE \(condition) RETURNING \(PostgresUserRepository.columns)",
            now: change.now
        )
    }

    /// Sets a password with `update` (an `UPDATE users … RETURNING` the account's columns),
    /// then uses up the account's reset links and ends its sessions, in one transaction. The
    /// second step is a statement of its own: the update waits for a login that holds the
    /// account's row (``PostgresUserRepository/lockUnchanged(id:passwordHash:)``) and, under
    /// READ COMMITTED, only a later statement sees the session that login committed meanwhile.
    private func setPassword(_ update: SQL, now: Date) async throws -> (user: User, revoked: Int)? {
        let logger = database.logger
        return try await database.run { client in
            try await client.withTransaction(logger: logger) { connection -> (user: User, revoked: Int)? in
                var account: User?
                for try await row in try await connection.query(try update.query, logger: logger).decode(PostgresUserRepository.Row.self) {
                    account = PostgresUserRepository.user(row)
                }
                guard let account else { return nil }
                let ended: SQL = """
                    WITH links AS (
                             UPDATE account_tokens SET used_at = \(now)
                             WHERE user_id = \(account.id) AND purpose IN ('password_reset', 'email_change') AND used_at IS NULL
                         ),
                         \(PostgresRefreshTokenRepository.revokeFamilies(where: "user_id = \(account.id)", now: now))
                    SELECT count(*)::int8 FROM families
                    """
                var revoked = 0
                for try await count in try await connection.query(try ended.query, logger: logger).decode(Int.self) { revoked = count }
                return (account, revoked)
            }
        }
    }

    public func verifyEmail(tokenHash: String, now: Date) async throws -> (user: User, changed: Bool)? {
        // A change's token sets its address (and uses up the account's other changes); a
        // verification's proves the address only while it is still the account's.
        do {
            return try await database.query(
                """
                WITH token AS (
                         UPDATE account_tokens t SET used_at = \(now)
                         WHERE token_hash = \(tokenHash) AND used_at IS NULL AND expires_at > \(now)
                           AND (t.purpose = 'email_change'
                                OR (t.purpose = 'email_verification' AND EXISTS (SELECT 1 FROM users u WHERE u.id = t.user_id AND u.email = t.email)))
                         RETURNING t.user_id, t.purpose = 'email_change' AS changes, t.email AS new_email, t.email_key AS new_email_key
                     ),
                     others AS (
                         UPDATE account_tokens SET used_at = \(now)
                         WHERE user_id IN (SELECT user_id FROM token WHERE changes) AND purpose = 'email_change' AND used_at IS NULL
                           AND token_hash <> \(tokenHash)
                     ),
                     account AS (
                         UPDATE users u SET
                             email = CASE WHEN token.changes THEN token.new_email ELSE u.email END,
                             email_key = CASE WHEN token.changes THEN token.new_email_key ELSE u.email_key END,
                             email_verified_at = CASE WHEN token.changes THEN \(now) ELSE coalesce(u.email_verified_at, \(now)) END
                         FROM token WHERE u.id = token.user_id
                         RETURNING \(PostgresUserRepository.columns), token.changes
                     )
                SELECT * FROM account
                """
            ) { rows in
                for try await (id, username, hash, disabledAt, createdAt, email, verifiedAt, changed)
                    in rows.decode((UUID?, String?, String?, Date?, Date?, String?, Date?, Bool).self)
                {
                    guard let user = PostgresUserRepository.user((id, username, hash, disabledAt, createdAt, email, verifiedAt)) else {
                        continue
                    }
                    return (user, changed)
                }
                return nil
            }
        } catch  where Database.sqlState(of: error) == "23505" {
            // Another account took the new address meanwhile: the token stays unused.
            return nil
        }
    }

    public func useSignInCode(emailKey: String, now: Date, maxFailures: Int, matches: @escaping @Sendable (String) -> Bool) async throws
        -> SignInCodeOutcome
    {
        let logger = database.logger
        let live: SQL = """
            SELECT t.token_hash, t.failed_attempts FROM account_tokens t JOIN users u ON u.id = t.user_id
            WHERE u.email_key = \(emailKey) AND u.email_verified_at IS NOT NULL AND u.email = t.email
              AND t.purpose = 'email_sign_in' AND t.used_at IS NULL AND t.expires_at > \(now)
            ORDER BY t.created_at DESC LIMIT 1
            FOR UPDATE OF t
            """
        return try await database.run { client in
            try await client.withTransaction(logger: logger) { connection -> SignInCodeOutcome in
                var found: (hash: String, failures: Int)?
                for try await (hash, failures) in try await connection.query(try live.query, logger: logger).decode((String, Int).self) {
                    found = (hash, failures)
                }
                guard let found else { return .noCode }
                let right = matches(found.hash)
                let failures = right ? found.failures : found.failures + 1
                let used = right || failures >= maxFailures
                let update: SQL = """
                    WITH token AS (
                             UPDATE account_tokens SET failed_attempts = \(failures), used_at = CASE WHEN \(used) THEN \(now) END
                             WHERE token_hash = \(found.hash)
                             RETURNING user_id
                         )
                    SELECT \(PostgresUserRepository.columns) FROM users WHERE id IN (SELECT user_id FROM token)
                    """
                var account: User?
                for try await row in try await connection.query(try update.query, logger: logger).decode(PostgresUserRepository.Row.self) {
                    account = PostgresUserRepository.user(row)
                }
                guard let account else { return .noCode }
                return right ? .signedIn(account) : .wrong(account, attemptsLeft: max(0, maxFailures - failures))
            }
        }
    }

    public func useSignInToken(tokenHash: String, now: Date) async throws -> User? {
        try await firstUser(
            """
            WITH token AS (
                     UPDATE account_tokens t SET used_at = \(now)
                     WHERE token_hash = \(tokenHash) AND purpose = 'email_sign_in' AND used_at IS NULL AND expires_at > \(now)
                       AND EXISTS (SELECT 1 FROM users u WHERE u.id = t.user_id AND u.email = t.email AND u.email_verified_at IS NOT NULL)
                     RETURNING user_id
                 )
            SELECT \(PostgresUserRepository.columns) FROM users WHERE id IN (SELECT user_id FROM token)
            """
        )
    }

    public func deleteEnded(before date: Date, limit: Int) async throws -> Int {
        try await database.countingChanges(
            """
            DELETE FROM account_tokens WHERE token_hash = ANY(ARRAY(
                SELECT token_hash FROM account_tokens WHERE expires_at < \(date) OR used_at < \(date)
                LIMIT \(limit) FOR UPDATE SKIP LOCKED
            ))
            """
        )
    }

    private func firstUser(_ statement: SQL) async throws -> User? {
        try await database.query(statement) { rows in
            for try await row in rows.decode(PostgresUserRepository.Row.self) { return PostgresUserRepository.user(row) }
            return nil
        }
    }
}
