import AuthCore
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
    public init(configuration: PostgresClient.Configuration, timeout: Duration = .seconds(5), logger: Logger) {
        self.database = Database(configuration: configuration, timeout: timeout, logger: logger)
    }

    public var users: PostgresUserRepository { PostgresUserRepository(database: database) }
    public var refreshTokens: PostgresRefreshTokenRepository { PostgresRefreshTokenRepository(database: database) }
    public var loginAttempts: PostgresLoginAttemptStore { PostgresLoginAttemptStore(database: database) }
    public var signingKeys: PostgresSigningKeyRepository { PostgresSigningKeyRepository(database: database) }
    public var readiness: Database { database }

    @discardableResult
    public func migrate() async throws -> [String] {
        try await MigrationRunner(database: database).migrate()
    }

    /// Runs the connection pool (and the database's availability watch) until cancelled.
    public func run() async {
        await database.runPool()
    }

    /// Runs `body` while the pool runs, and stops the pool afterwards.
    public func withRunning<T: Sendable>(_ body: @Sendable (Self) async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await self.run() }
            defer { group.cancelAll() }
            return try await body(self)
        }
    }
}
