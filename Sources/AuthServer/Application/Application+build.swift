import AuthCore
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import ServiceLifecycle

/// Builds the authd application on `storage`: the composition root used by `authd serve`
/// (with `PostgresStorage`), by the tests (`app.test(.router)` and `.live`, on a PostgreSQL
/// database of their own) and by anything embedding the service.
///
/// Before it listens, it applies migrations (unless disabled), seals any signing key still
/// stored in clear under `keyEncryptionKey`, creates the first signing key if there is none
/// (and the first ID-token key of each algorithm a registered client uses) and loads the
/// published keys (failing when they were sealed under another KEK). The
/// storage's background work (a connection pool) runs as one of the application's services.
///
/// ```swift
/// let storage = PostgresStorage(target: try DatabaseURL.parse(url), logger: logger)
/// let kek = try KeyEncryptionKey(base64: environment["AUTHD_KEY_ENCRYPTION_KEY"] ?? "")
/// let app = try await buildApplication(configuration: AppConfiguration(), storage: storage, keyEncryptionKey: kek)
/// try await app.runService()
/// ```
public func buildApplication(
    configuration: AppConfiguration, storage: some AuthStorage, keyEncryptionKey: KeyEncryptionKey
) async throws -> some ApplicationProtocol {
    let logger = configuration.logger
    let issuer = AccessTokenIssuer(
        issuer: configuration.issuer, lifetime: configuration.accessTokenLifetime, audiences: configuration.audiences,
        clock: configuration.clock
    )
    let pool =
        configuration.hashingPool
        ?? BlockingWorkPool(
            width: configuration.hashingConcurrency, queueLimit: configuration.hashingQueueLimit, niceness: configuration.hashingNiceness)
    let hashing = PasswordHashing(hasher: Argon2idHasher(parameters: configuration.hashParameters), pool: pool)
    let keys = KeyService(storage: storage, keyEncryptionKey: keyEncryptionKey, clock: configuration.clock)
    // Counters name usernames and addresses by a keyed digest: a reader of the table
    // cannot test guesses of what was typed.
    var throttle = configuration.throttle
    throttle.digestKey = throttle.digestKey ?? keyEncryptionKey.derivedKey(purpose: "throttle-counters")
    let login = try await LoginService.make(
        storage: storage,
        issuer: issuer,
        hashing: hashing,
        throttle: throttle,
        refreshLifetime: configuration.refreshTokenLifetime,
        sessionMaxAge: configuration.sessionMaxAge,
        clock: configuration.clock,
        metrics: configuration.metrics,
        logger: logger
    )
    let sessions = SessionService(
        storage: storage, issuer: issuer, refreshLifetime: configuration.refreshTokenLifetime,
        clock: configuration.clock, metrics: configuration.metrics,
        accounts: RecentAccounts(lifetime: configuration.accountReadLifetime, clock: configuration.clock)
    )
    // Reset, verification and the owner's notices exist only with somewhere to deliver them.
    let wake = DeliveryWake()
    let started = DeliveryWake()
    let notices = configuration.delivery.map { _ in OwnerNotices(storage: storage, wake: wake, clock: configuration.clock) }
    let accounts = AccountService(
        storage: storage, hashing: hashing, passwords: configuration.passwords, clock: configuration.clock, notices: notices)
    let recovery = configuration.delivery.map { delivery in
        AccountRecoveryService(
            storage: storage, hashing: hashing, passwords: configuration.passwords, throttle: throttle,
            sealer: DeliverySealer(keyEncryptionKey: keyEncryptionKey), wake: wake, lifetimes: delivery.lifetimes,
            clock: configuration.clock, metrics: configuration.metrics
        )
    }
    let factors = SecondFactorService(login: login, algorithm: HummingbirdTOTP(), keyEncryptionKey: keyEncryptionKey, notices: notices)
    // Passkeys exist only with a relying party to be (`serve --rp-id`).
    let passkeys = configuration.passkeys.map { PasskeyService(login: login, relyingParty: $0, notices: notices) }
    let provider = OpenIDProvider(sessions: sessions, keys: keys, sessionMaxAge: configuration.sessionMaxAge)
    // Upstream providers are called with a client of their own, which follows no redirect.
    let providerTransport = HTTPProviderTransport(
        client: HTTPDeliveryTransport.makeClient(), timeout: .seconds(configuration.providerTimeout.components.seconds))
    let providerKeys = ProviderKeyCache(transport: providerTransport, clock: configuration.clock, metrics: configuration.metrics)
    // Email sign-in codes, too, go out through the deliveries; with them, a verified address is a way in.
    let emailSignIn = configuration.delivery.map { delivery in
        EmailSignIn(
            login: login, sealer: DeliverySealer(keyEncryptionKey: keyEncryptionKey), wake: wake, lifetime: delivery.lifetimes.emailSignIn)
    }
    let providerTokens = ProviderTokenEndpoint(
        transport: providerTransport, keyEncryptionKey: keyEncryptionKey, clock: configuration.clock)
    let federation = FederatedLogin(
        login: login, verifier: IDTokenVerifier(keys: providerKeys, clock: configuration.clock), signUpOpen: configuration.signUpOpen,
        emailIsAWayIn: emailSignIn != nil, tokens: providerTokens)
    let router = buildRouter(
        login: login, sessions: sessions, accounts: accounts, recovery: recovery, factors: factors, passkeys: passkeys, provider: provider,
        federation: federation, emailSignIn: emailSignIn, issuer: issuer, readiness: storage.readiness, pool: pool,
        browserSessions: BrowserSessions(
            sealer: BrowserSessionSealer(keyEncryptionKey: keyEncryptionKey), publicURL: configuration.publicURL,
            tls: configuration.tls != nil,
            clock: configuration.clock
        ),
        configuration: configuration
    )
    let connections = ConnectionsPerAddress(limit: configuration.maxConnectionsPerAddress, exempt: configuration.trustedProxies)
    let http1 = HTTPServerBuilder.http1WithJSONErrors(
        requestHeadTimeout: configuration.requestHeadTimeout, idleTimeout: configuration.idleTimeout, connections: connections
    )
    // The API's connections under the cap: at it, the one waiting longest for a request head
    // makes room for a new one.
    let cap = ConnectionCap(limit: configuration.maxConnections, metrics: configuration.metrics)
    let capped = HTTPServerBuilder.http1WithJSONErrors(
        requestHeadTimeout: configuration.requestHeadTimeout, idleTimeout: configuration.idleTimeout, connections: connections, cap: cap
    )
    let server: HTTPServerBuilder =
        if let tls = configuration.tls {
            try .tls(capped, tlsConfiguration: tls)
        } else {
            capped
        }

    var services: [any Service] = [
        StorageService(storage: storage),
        HTTPClientService(client: providerTransport.client),
        PeriodicService(interval: configuration.keyReloadInterval) { [reloader = KeyReloader(keys: keys, issuer: issuer, logger: logger)] in
            await reloader.reload()
        },
        PeriodicService(interval: configuration.retentionInterval) {
            [
                runner = RetentionRunner(
                    retention: RetentionService(
                        storage: storage, policy: configuration.retention, clock: configuration.clock, metrics: configuration.metrics),
                    logger: logger
                )
            ] in
            await runner.runOnce()
        },
        PeriodicService(interval: configuration.providerRevocationInterval) {
            [revocations = ProviderTokenRevocations(storage: storage, endpoint: providerTokens, clock: configuration.clock)] in
            do {
                try await revocations.runOnce()
            } catch {
                logger.warning("provider token revocations not sent", metadata: ["reason": "\(type(of: error))"])
            }
        },
    ]
    if let delivery = configuration.delivery {
        let client = HTTPDeliveryTransport.makeClient()
        let sender = DeliveryService(
            storage: storage, transport: HTTPDeliveryTransport(url: delivery.url, client: client), secret: delivery.secret,
            sealer: DeliverySealer(keyEncryptionKey: keyEncryptionKey), policy: delivery.policy, clock: configuration.clock,
            metrics: configuration.metrics,
            // With a public URL, a token's message links to authd's own page for it.
            links: configuration.publicURL.map { DeliveryLinks(base: $0, paths: AccountPages.linkPaths) }
        )
        services.append(DeliveryRunner(sender: sender, client: client, wake: wake, started: started, logger: logger))
    }
    if let listen = configuration.metricsListen {
        // Plain HTTP on an address of its own, for the scraper's network only.
        services.append(
            Application(
                router: buildMetricsRouter(readiness: storage.readiness, pool: pool, configuration: configuration),
                server: http1,
                configuration: .init(address: .hostname(listen.host, port: listen.port), serverName: nil),
                onServerRunning: { channel in
                    await configuration.onMetricsListening(listen.host, channel.localAddress?.port ?? listen.port)
                },
                logger: logger
            )
        )
    }
    var app = Application(
        router: router,
        server: server,
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port), serverName: nil,
            availableConnectionsDelegate: cap.delegate
        ),
        services: services,
        onServerRunning: { channel in
            cap.listens(on: channel)
            await configuration.onListening(configuration.host, channel.localAddress?.port ?? configuration.port)
        },
        logger: logger
    )
    app.beforeServerStarts {
        if configuration.migrateOnStart {
            try await storage.migrate()
        }
        try await login.measureStoredHashParameters()
        // The ID-token keys of the registered clients' algorithms too, so every instance
        // publishes them before a first ID token is signed with one.
        let idTokenAlgorithms = try await storage.clients.all().filter(\.signIn.signsUsersIn).map(\.signIn.idTokenAlgorithm)
        try issuer.install(try await keys.ensureKey(algorithms: Set([.edDSA] + idTokenAlgorithms)))
        started.signal()
    }
    return app
}
