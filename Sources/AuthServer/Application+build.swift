import AuthCore
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import ServiceLifecycle

/// Builds the authd application on `storage`: the composition root used by `authd serve`
/// (with `PostgresStorage`), by the tests (`app.test(.router)` and `.live`, on PostgreSQL
/// or in memory) and by anything embedding the service.
///
/// Before it listens, it applies migrations (unless disabled), creates the first signing
/// key if there is none and loads the published keys. The storage's background work (a
/// connection pool) runs as one of the application's services.
///
/// ```swift
/// let storage = PostgresStorage(configuration: try DatabaseURL.parse(url), logger: logger)
/// let app = try await buildApplication(configuration: AppConfiguration(), storage: storage)
/// try await app.runService()
/// ```
public func buildApplication(configuration: AppConfiguration, storage: some AuthStorage) async throws -> some ApplicationProtocol {
    let logger = configuration.logger
    let issuer = AccessTokenIssuer(
        issuer: configuration.issuer, lifetime: configuration.accessTokenLifetime, clock: configuration.clock
    )
    let pool = configuration.hashingPool
        ?? BlockingWorkPool(width: configuration.hashingConcurrency, queueLimit: configuration.hashingQueueLimit)
    let login = try await LoginService.make(
        storage: storage,
        issuer: issuer,
        pool: pool,
        hasher: Argon2idHasher(parameters: configuration.hashParameters),
        throttle: configuration.throttle,
        refreshLifetime: configuration.refreshTokenLifetime,
        clock: configuration.clock,
        metrics: configuration.metrics,
        logger: logger
    )
    let sessions = SessionService(
        storage: storage, issuer: issuer, refreshLifetime: configuration.refreshTokenLifetime,
        clock: configuration.clock, metrics: configuration.metrics
    )
    let router = buildRouter(login: login, sessions: sessions, readiness: storage.readiness, configuration: configuration)
    let server: HTTPServerBuilder =
        if let tls = configuration.tls {
            try .tls(.http1WithJSONErrors(), tlsConfiguration: tls)
        } else {
            .http1WithJSONErrors()
        }

    var app = Application(
        router: router,
        server: server,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
        services: [
            StorageService(storage: storage),
            KeyReloadService(keys: storage.signingKeys, issuer: issuer, interval: configuration.keyReloadInterval, logger: logger),
        ],
        onServerRunning: { channel in
            await configuration.onListening(configuration.host, channel.localAddress?.port ?? configuration.port)
        },
        logger: logger
    )
    app.beforeServerStarts {
        if configuration.migrateOnStart {
            try await storage.migrate()
        }
        let clock = configuration.clock
        let keys = try await storage.signingKeys.ensureSigningKey { SigningKey.generate(now: clock.now) }
        try await issuer.install(keys)
    }
    return app
}

/// Runs a storage's background work for as long as the application runs.
struct StorageService<Storage: AuthStorage>: Service {
    let storage: Storage

    func run() async throws {
        await cancelWhenGracefulShutdown { await storage.run() }
        // Storage with nothing to run stays up until the application shuts down.
        try? await gracefulShutdown()
    }
}

/// Reloads the published signing keys every `interval`, so that a key added by
/// `authd keys rotate` (on any instance) signs and is published here too. A failed reload
/// (the database is away) keeps the keys in use and tries again next time.
struct KeyReloadService<Keys: SigningKeyRepository>: Service {
    let keys: Keys
    let issuer: AccessTokenIssuer
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return
                }
                await reload()
            }
        }
    }

    private func reload() async {
        do {
            let published = try await keys.publishedKeys()
            guard !published.isEmpty, published.map(\.kid) != (await issuer.kids) else { return }
            try await issuer.install(published)
            logger.info("signing keys reloaded", metadata: ["current_kid": "\(published[0].kid)"])
        } catch {
            logger.warning("signing key reload failed", metadata: ["reason": "\(type(of: error))"])
        }
    }
}
