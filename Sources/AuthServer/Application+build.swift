import AuthCore
import AuthPostgres
import Hummingbird
import Logging
import PostgresNIO

/// Builds the authd application on PostgreSQL: the composition root used by `authd serve`,
/// by the tests (`app.test(.router)` and `.live`) and by anything embedding the service.
///
/// Before it listens, it applies migrations (unless disabled), creates the first signing
/// key if there is none and loads the published keys.
///
/// ```swift
/// let app = try await buildApplication(configuration: AppConfiguration(database: try DatabaseURL.parse(url)))
/// try await app.runService()
/// ```
public func buildApplication(configuration: AppConfiguration) async throws -> some ApplicationProtocol {
    let logger = configuration.logger
    let client = PostgresClient(configuration: configuration.database, backgroundLogger: logger)
    let database = Database(client: client, timeout: configuration.databaseTimeout, logger: logger)
    let users = PostgresUserRepository(database: database)
    let signingKeys = PostgresSigningKeyRepository(database: database)
    let issuer = AccessTokenIssuer(
        issuer: configuration.issuer, lifetime: configuration.accessTokenLifetime, clock: configuration.clock
    )
    let pool = configuration.hashingPool
        ?? BlockingWorkPool(width: configuration.hashingConcurrency, queueLimit: configuration.hashingQueueLimit)
    let login = try await LoginService.make(
        users: users,
        refreshTokens: PostgresRefreshTokenRepository(database: database),
        attempts: PostgresLoginAttemptStore(database: database),
        issuer: issuer,
        pool: pool,
        hasher: Argon2idHasher(parameters: configuration.hashParameters),
        throttle: configuration.throttle,
        refreshLifetime: configuration.refreshTokenLifetime,
        clock: configuration.clock,
        logger: logger
    )
    let router = buildRouter(login: login, issuer: issuer, readiness: database, maxBodySize: configuration.maxBodySize)

    var app = Application(
        router: router,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
        services: [client],
        onServerRunning: { channel in
            await configuration.onListening(configuration.host, channel.localAddress?.port ?? configuration.port)
        },
        logger: logger
    )
    app.beforeServerStarts {
        if configuration.migrateOnStart {
            try await MigrationRunner(database: database).migrate()
        }
        let clock = configuration.clock
        let keys = try await signingKeys.ensureSigningKey { SigningKey.generate(now: clock.now) }
        try await issuer.install(keys)
    }
    return app
}
