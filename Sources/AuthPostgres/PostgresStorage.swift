import AuthCore
import Foundation
import Logging
import PostgresNIO

/// authd's storage on PostgreSQL: the one place where a `PostgresClient` is made and
/// the repositories are wired to it.
///
/// ```swift
/// let storage = PostgresStorage(configuration: try DatabaseURL.parse(url), logger: logger)
/// try await storage.withRunning { storage in
///     try await storage.migrate()
///     return try await storage.users.all()
/// }
/// ```
public struct PostgresStorage: AuthStorage {
    /// The database every repository uses.
    public let database: Database

    /// A storage on the database `configuration` reaches; `timeout` bounds each operation.
    /// Nothing connects until ``run()`` runs.
    public init(
        configuration: PostgresClient.Configuration, timeout: Duration = .seconds(5), logger: Logger,
        metrics: AuthMetrics = AuthMetrics()
    ) {
        self.database = Database(configuration: configuration, timeout: timeout, logger: logger, metrics: metrics)
    }

    public var users: PostgresUserRepository { PostgresUserRepository(database: database) }
    public var refreshTokens: PostgresRefreshTokenRepository { PostgresRefreshTokenRepository(database: database) }
    public var loginAttempts: PostgresLoginAttemptStore { PostgresLoginAttemptStore(database: database) }
    public var signingKeys: PostgresSigningKeyRepository { PostgresSigningKeyRepository(database: database) }
    public var readiness: Database { database }
    public var audit: PostgresAuditLog { PostgresAuditLog(database: database) }

    @discardableResult
    public func migrate() async throws -> [String] {
        try await MigrationRunner(database: database).migrate()
    }

    /// Runs the connection pool (and the database's availability watch) until cancelled.
    public func run() async {
        await database.runPool()
    }

    /// The throttle check and the account in one statement.
    public func loginLookup(usernameKey: String, throttle keys: [ThrottleKey], now: Date) async throws -> LoginLookup {
        let logger = database.logger
        let keys = PostgresLoginAttemptStore.Keys(keys)
        return try await database.run { client in
            let rows = try await client.query(
                """
                SELECT login_retry_after(\(keys.scopes), \(keys.digests), \(keys.limits), \(keys.windows), \(now)),
                       u.id, u.username, u.password_hash, u.disabled_at, u.created_at
                FROM (SELECT 1) AS one LEFT JOIN users u ON u.username_key = \(usernameKey)
                """,
                logger: logger
            )
            var lookup = LoginLookup(retryAfter: nil, user: nil)
            for try await (wait, id, username, hash, disabledAt, createdAt) in rows.decode((Int?, UUID?, String?, String?, Date?, Date?).self) {
                lookup.retryAfter = wait
                if let id, let username, let hash, let createdAt {
                    lookup.user = User(id: id, username: username, passwordHash: hash, isDisabled: disabledAt != nil, createdAt: createdAt)
                }
            }
            return lookup
        }
    }

    /// The writes of a successful login in one statement, so one round trip and one
    /// transaction: data-modifying CTEs always run, whether or not the outer query reads them.
    public func recordLoginSuccess(_ success: LoginSuccess) async throws {
        let logger = database.logger
        let (key, token, event) = (success.clearedKey, success.refreshToken, success.event)
        try await database.run { client in
            _ = try await client.query(
                """
                WITH cleared AS (
                    DELETE FROM login_failures WHERE scope = \(key.scope.rawValue) AND subject_digest = \(key.subjectDigest)
                ), token AS (
                    INSERT INTO refresh_tokens (token_hash, family_id, user_id, expires_at)
                    VALUES (\(token.tokenHash), \(token.familyID), \(token.userID), \(token.expiresAt))
                )
                INSERT INTO audit_events (at, kind, user_id, username_key, client_address, request_id, detail)
                VALUES (\(event.at), \(event.kind.rawValue), \(event.userID), \(event.usernameKey),
                        \(event.origin.clientAddress), \(event.origin.requestID), \(event.detail))
                """,
                logger: logger
            )
        }
    }

    /// Runs `body` while the pool runs, and stops the pool afterwards.
    public func withRunning<T: Sendable>(_ body: @Sendable (Self) async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await self.run() }
            defer { group.cancelAll() }
            await database.waitUntilPoolStarts()
            return try await body(self)
        }
    }
}
