import ArgumentParser
import AuthCore
import AuthPostgres
import AuthServer
import Foundation
import Hummingbird
import NIOSSL

extension Authd {
    /// `authd serve`: migrate, then answer HTTP until SIGINT or SIGTERM.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the login service (migrates the database first)."
        )

        /// The defaults of every option: ``AuthServer/AppConfiguration``'s.
        static let defaults = AppConfiguration()

        @Option(help: "Address to listen on.")
        var host = Serve.defaults.host

        @Option(help: "Port to listen on (0 picks a free one).")
        var port = Serve.defaults.port

        @Option(
            name: .customLong("issuer"),
            help: "The iss claim of access tokens and the OAuth metadata's issuer (default: --public-url when given, else authd)."
        )
        var issuer: String?

        @Option(
            name: .customLong("public-url"),
            help: ArgumentHelp(
                "The URL clients reach authd at (behind a proxy, the proxy's): the base of the OAuth metadata's URLs (default: each request's scheme and Host) and of the page links in delivered messages (none without it).",
                valueName: "url"
            )
        )
        var publicURL: String?

        @Option(
            name: .customLong("audience"),
            help: ArgumentHelp(
                "An `aud` of the access tokens (a resource server they are for); repeatable. /me accepts only tokens naming one.",
                valueName: "uri")
        )
        var audiences: [String] = Serve.defaults.audiences

        @Option(name: .customLong("access-token-ttl"), help: "Access token lifetime in seconds.")
        var accessTokenLifetime = Serve.defaults.accessTokenLifetime

        @Option(name: .customLong("refresh-token-ttl"), help: "Refresh token lifetime in seconds.")
        var refreshTokenLifetime = Serve.defaults.refreshTokenLifetime

        @Option(
            name: .customLong("session-max-age"),
            help: "A session's absolute lifetime in seconds, from its login: refresh tokens stop working then, however often rotated."
        )
        var sessionMaxAge = Serve.defaults.sessionMaxAge

        @Option(name: .customLong("hash-queue"), help: "Logins that may wait for a hashing slot before others get 503.")
        var hashQueue = Serve.defaults.hashingQueueLimit

        @Option(
            name: .customLong("hash-niceness"),
            help: "The nice value (0-19) of the hashing threads: 19 keeps requests that need no hash answered while every core hashes."
        )
        var hashNiceness = Serve.defaults.hashingNiceness

        @Option(
            name: .customLong("trusted-proxy"),
            help: ArgumentHelp("A proxy (CIDR or address) whose X-Forwarded-For is believed; repeatable.", valueName: "cidr")
        )
        var trustedProxies: [String] = []

        @Option(name: .customLong("tls-cert"), help: ArgumentHelp("Serve HTTPS with this PEM certificate chain.", valueName: "file"))
        var tlsCertificate: String?

        @Option(name: .customLong("tls-key"), help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "file"))
        var tlsKey: String?

        @Option(
            name: .customLong("request-head-timeout"),
            help: "Seconds a connection has to send a complete request head, from opening or from its previous answer.")
        var requestHeadTimeout = Int(Serve.defaults.requestHeadTimeout.components.seconds)

        @Option(name: .customLong("idle-timeout"), help: "Seconds a connection may stay silent in the middle of a request.")
        var idleTimeout = Int(Serve.defaults.idleTimeout.components.seconds)

        @Option(
            name: .customLong("body-timeout"),
            help: "Seconds a request body may take to arrive whole, however steadily it comes; 408 after.")
        var bodyTimeout = Int(Serve.defaults.bodyTimeout.components.seconds)

        @Option(
            name: .customLong("max-connections"),
            help:
                "Connections served at once; at the cap a new one closes the connection waiting longest (1 s or more) for a request head, else waits in the listen queue."
        )
        var maxConnections = Serve.defaults.maxConnections

        @Option(
            name: .customLong("max-connections-per-address"),
            help:
                "Connections one client address may hold open at once (--trusted-proxy addresses are not limited); more are closed at once."
        )
        var maxConnectionsPerAddress = Serve.defaults.maxConnectionsPerAddress

        @Option(
            name: .customLong("metrics-listen"),
            help: ArgumentHelp("Serve GET /metrics here (plain HTTP) instead of on the public port.", valueName: "host:port")
        )
        var metricsListen: String?

        @Option(
            name: .customLong("key-reload-interval"), help: "Seconds between reloads of the signing keys (a rotation is seen within this).")
        var keyReloadInterval = Int(Serve.defaults.keyReloadInterval.components.seconds)

        @Option(
            name: .customLong("signup"),
            help: ArgumentHelp("Whether POST /users lets anyone create an account: open or closed (a 404).", valueName: "open|closed")
        )
        var signUp: SignUpMode = .closed

        @Option(name: .customLong("signup-limit"), help: "Sign-ups from one client address in an hour.")
        var signUpLimit = Serve.defaults.throttle.signupLimit

        @Option(
            name: .customLong("client-limit"),
            help: "Authentications of one relying party from one client address in 15 minutes (the ones in flight included).")
        var clientLimit = Serve.defaults.throttle.clientLimit

        @Option(
            name: .customLong("login-limit-per-address"), help: "Login attempts from one client address, for any usernames, in 15 minutes.")
        var loginLimitPerAddress = Serve.defaults.throttle.addressLimit

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var readReplicas: ReadReplicaOptions
        @OptionGroup var keyEncryption: KeyEncryptionKeyOptions
        @OptionGroup var hashing: HashOptions
        @OptionGroup var passwords: PasswordOptions
        @OptionGroup var deliveries: DeliveryOptions
        @OptionGroup var passkeys: PasskeyOptions

        @Flag(
            name: .customLong("test-clock"),
            help:
                "For tests only, never in production: serve GET and POST /test/clock, which move authd's time forward ({\"advance\": seconds}) so a test sees tokens expire without waiting."
        )
        var testClock = false
        @OptionGroup var retention: RetentionOptions
        @OptionGroup var logging: LoggingOptions

        func validate() throws {
            guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
            guard accessTokenLifetime > 0, refreshTokenLifetime > 0, sessionMaxAge > 0 else {
                throw ValidationError("token lifetimes and --session-max-age must be positive.")
            }
            guard signUpLimit > 0, loginLimitPerAddress > 0, clientLimit > 0 else {
                throw ValidationError("--signup-limit, --login-limit-per-address and --client-limit must be positive.")
            }
            guard hashQueue >= 0 else { throw ValidationError("--hash-queue must not be negative.") }
            guard (0...19).contains(hashNiceness) else { throw ValidationError("--hash-niceness must be between 0 and 19.") }
            if let publicURL {
                guard let url = URL(string: publicURL), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                    url.host?.isEmpty == false,
                    url.query == nil, url.fragment == nil, url.user == nil
                else {
                    throw ValidationError(
                        "--public-url must be an http or https URL without query, fragment or user, e.g. https://auth.example.com.")
                }
            }
            guard requestHeadTimeout > 0, idleTimeout > 0, bodyTimeout > 0, maxConnections > 0, maxConnectionsPerAddress > 0 else {
                throw ValidationError(
                    "--request-head-timeout, --idle-timeout, --body-timeout, --max-connections and --max-connections-per-address must be positive."
                )
            }
            guard (tlsCertificate == nil) == (tlsKey == nil) else {
                throw ValidationError("--tls-cert and --tls-key go together.")
            }
            guard (1...30).contains(keyReloadInterval) else {
                throw ValidationError("--key-reload-interval must be between 1 and 30 seconds.")
            }
            do {
                _ = try TrustedProxies(trustedProxies)
            } catch {
                throw ValidationError("--trusted-proxy: \(error)")
            }
            do {
                _ = try metricsListen.map(ListenAddress.init(parsing:))
            } catch {
                throw ValidationError("--metrics-listen: \(error)")
            }
        }

        /// The TLS configuration of --tls-cert and --tls-key, if given.
        private func tlsConfiguration() throws -> TLSConfiguration? {
            guard let tlsCertificate, let tlsKey else { return nil }
            do {
                let chain = try NIOSSLCertificate.fromPEMFile(tlsCertificate).map { NIOSSLCertificateSource.certificate($0) }
                let key = try NIOSSLPrivateKey(file: tlsKey, format: .pem)
                return TLSConfiguration.authdServer(certificateChain: chain, privateKey: .privateKey(key))
            } catch {
                throw CLIError("cannot load --tls-cert/--tls-key: \(error)")
            }
        }

        func run() async throws {
            let logger = logging.makeLogger()
            let tls = try tlsConfiguration()
            let proxies = try TrustedProxies(trustedProxies)
            let reload = Duration.seconds(keyReloadInterval)
            let metrics = try metricsListen.map(ListenAddress.init(parsing:))
            let screen = try passwords.screen()
            let delivery = try deliveries.configuration()
            try await database.withSealedDatabase(keyEncryption, logger: logger) { databaseConfiguration, keyEncryptionKey in
                var configuration = AppConfiguration()
                configuration.host = host
                configuration.port = port
                configuration.issuer = issuer ?? publicURL ?? Serve.defaults.issuer
                configuration.publicURL = publicURL
                configuration.accessTokenLifetime = accessTokenLifetime
                configuration.audiences = audiences
                configuration.refreshTokenLifetime = refreshTokenLifetime
                configuration.sessionMaxAge = sessionMaxAge
                configuration.hashParameters = hashing.parameters
                configuration.hashingQueueLimit = hashQueue
                configuration.hashingNiceness = hashNiceness
                configuration.passwords = screen
                configuration.signUpOpen = signUp == .open
                configuration.throttle.signupLimit = signUpLimit
                configuration.throttle.addressLimit = loginLimitPerAddress
                configuration.throttle.clientLimit = clientLimit
                deliveries.apply(to: &configuration.throttle)
                configuration.delivery = delivery
                configuration.passkeys = passkeys.relyingParty()
                if testClock {
                    configuration.testClock = SteppedClock()
                    logger.warning("--test-clock: POST /test/clock moves this authd's time forward; never use it in production")
                }
                configuration.logger = logger
                configuration.tls = tls
                configuration.trustedProxies = proxies
                configuration.keyReloadInterval = reload
                configuration.retention = retention.policy
                configuration.retentionInterval = .seconds(retention.interval)
                let scheme = tls == nil ? "http" : "https"
                configuration.onListening = { host, port in
                    // Unbuffered, so a supervisor (or a test) reading a pipe sees it at once.
                    FileHandle.standardOutput.write(Data("authd listening on \(scheme)://\(host):\(port)\n".utf8))
                }
                configuration.metricsListen = metrics
                configuration.requestHeadTimeout = .seconds(requestHeadTimeout)
                configuration.idleTimeout = .seconds(idleTimeout)
                configuration.bodyTimeout = .seconds(bodyTimeout)
                configuration.maxConnections = maxConnections
                configuration.maxConnectionsPerAddress = maxConnectionsPerAddress
                configuration.onMetricsListening = { host, port in
                    FileHandle.standardOutput.write(Data("authd metrics on http://\(ListenAddress(host: host, port: port))/metrics\n".utf8))
                }
                let storage = PostgresStorage(
                    target: databaseConfiguration.withFixedPool, readReplicas: try readReplicas.targets(), maximumLag: readReplicas.lag,
                    logger: logger, metrics: configuration.metrics)
                let app = try await buildApplication(configuration: configuration, storage: storage, keyEncryptionKey: keyEncryptionKey)
                try await app.runService()
            }
        }
    }
}

/// `serve --signup`: whether `POST /users` exists.
enum SignUpMode: String, ExpressibleByArgument, CaseIterable {
    case open, closed
}
