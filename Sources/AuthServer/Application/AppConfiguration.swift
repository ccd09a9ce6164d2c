import AuthCore
import Foundation
import Logging
import NIOSSL
import Prometheus
import WebAuthn

/// Everything ``buildApplication(configuration:storage:keyEncryptionKey:)`` needs besides storage and the KEK, with
/// production defaults.
///
/// ```swift
/// var configuration = AppConfiguration()
/// configuration.port = 0                    // any free port
/// configuration.accessTokenLifetime = 300
/// ```
public struct AppConfiguration: Sendable {
    /// Address to listen on.
    public var host = "127.0.0.1"
    /// Port to listen on; 0 picks a free one.
    public var port = 8080
    /// Apply migrations before listening.
    public var migrateOnStart = true
    /// The `iss` claim of access tokens, and the metadata's `issuer` (`serve` makes it the
    /// ``publicURL`` when one is given and no `--issuer` is).
    public var issuer = "authd"
    /// The base URL clients reach authd at (`serve --public-url`, e.g. behind a proxy): the
    /// start of every URL in the OAuth metadata. Nil: each request's scheme and `Host`.
    public var publicURL: String?
    /// The `aud` claim of access tokens (the resource servers they are for); none by default.
    public var audiences: [String] = []
    /// Access token lifetime, seconds (default: AuthCore's ``AuthCore/SessionLifetimes``, as
    /// for the other lifetimes).
    public var accessTokenLifetime = SessionLifetimes().accessToken
    /// Seconds an account read for `GET /me` is used again (``AuthCore/RecentAccounts``; the
    /// routes that act on the account read it afresh): a disabled or deleted account is
    /// refused by every instance within this time. 0 reads it for every request.
    public var accountReadLifetime: TimeInterval = SessionLifetimes().accountRead
    /// Refresh token lifetime, seconds.
    public var refreshTokenLifetime = SessionLifetimes().refreshToken
    /// A session's absolute lifetime, seconds: rotation never carries it further.
    public var sessionMaxAge = SessionLifetimes().sessionMaxAge
    /// Argon2id parameters for new hashes; stored hashes with others are re-hashed at login.
    public var hashParameters = Argon2idHasher.Parameters.owasp
    /// Hashes computed at once (default: the number of cores).
    public var hashingConcurrency = ProcessInfo.processInfo.activeProcessorCount
    /// Logins waiting for a hashing slot before further ones get 503.
    public var hashingQueueLimit = BlockingWorkPool.defaultQueueLimit
    /// The nice value (0–19) of the hashing threads: 19, the lowest priority, keeps requests
    /// that need no hash answered while every core hashes; 0 gives logins the CPU as soon as
    /// anything else on the machine (a test run's authd, whose logins wait behind the tests).
    public var hashingNiceness = BlockingWorkPool.defaultNiceness
    /// The pool hashing runs on; nil builds one from ``hashingConcurrency``,
    /// ``hashingQueueLimit`` and ``hashingNiceness``. Pass one to share it or to observe its load.
    public var hashingPool: BlockingWorkPool?
    /// The policy of every password set through the service (the account routes'
    /// ``AuthCore/AccountService``): length, the built-in common list, and the breached list
    /// of `--breached-passwords` if one is given.
    public var passwords = PasswordScreen()
    /// Whether anyone may create an account with `POST /users` (`serve --signup open`); when
    /// not, the route does not exist (404).
    public var signUpOpen = false
    /// Where password-reset and email-verification messages are delivered; nil (the
    /// default) leaves the reset and verification routes out (404) and sends nothing.
    public var delivery: DeliveryConfiguration?
    /// The relying party of passkeys (`serve --rp-id`, `--rp-name`, `--origin`); nil: the
    /// WebAuthn routes are 404.
    public var passkeys: WebAuthnRelyingParty?
    /// Failed-login limits.
    public var throttle = ThrottlePolicy()
    /// Largest accepted request body, bytes.
    public var maxBodySize = 64 * 1024
    /// Proxies whose `X-Forwarded-For` is believed for the client's address.
    public var trustedProxies = TrustedProxies.none
    /// What is kept of audit events, login-attempt counters and ended sessions.
    public var retention = RetentionPolicy()
    /// How often retention runs (every instance runs it; their batches skip each other's rows).
    public var retentionInterval: Duration = .seconds(60)
    /// The deadline of one call to an upstream provider (its discovery document, keys, token
    /// and revocation endpoints).
    public var providerTimeout: Duration = .seconds(10)
    /// How often the providers' refresh tokens queued for revocation are sent.
    public var providerRevocationInterval: Duration = .seconds(5)
    /// How often every instance reloads the signing keys from storage, so that a key made by
    /// `authd keys rotate` signs and is published within this interval.
    public var keyReloadInterval: Duration = .seconds(10)
    /// `Cache-Control: max-age` of the JWKS, seconds. With the default reload interval a
    /// relying party sees a rotated key within 30 s.
    public var jwksMaxAge = 20
    /// Where metrics are kept; `GET /metrics` shows it. Share it with the storage's
    /// database (``metrics``) so database errors appear too.
    public var metricsRegistry = PrometheusCollectorRegistry()
    /// Serve HTTPS with this configuration instead of HTTP.
    public var tls: TLSConfiguration?
    /// Time source (injected in tests).
    public var clock: any WallClock = SystemClock()
    /// With `serve --test-clock`: a clock stepped forward by `POST /test/clock` (routed only
    /// then), which becomes ``clock`` when set. Never in production.
    public var testClock: SteppedClock? {
        didSet {
            if let testClock { clock = testClock }
        }
    }
    /// Called once the server listens, with the bound port.
    public var onListening: @Sendable (_ host: String, _ port: Int) async -> Void = { _, _ in }
    /// How long a connection has to deliver a complete request head, from when it opens or
    /// from its previous answer (slow or idle clients give their slot back).
    public var requestHeadTimeout: Duration = .seconds(10)
    /// How long a connection may stay silent in the middle of a request (a trickled body).
    public var idleTimeout: Duration = .seconds(30)
    /// How long a request's body may take to arrive whole, from when its head has arrived,
    /// however steadily it comes (``BodyDeadline``): 408 `request_timeout` after.
    public var bodyTimeout: Duration = .seconds(10)
    /// Connections served at once. At the cap a new connection closes the one that has
    /// waited longest for a request head (``ConnectionCap``); when every connection is
    /// inside a request, new ones wait in the listen queue until one closes.
    public var maxConnections = 1000
    /// Connections one client address may hold open at once (trusted proxies are not
    /// limited); beyond them a new connection is closed at once.
    public var maxConnectionsPerAddress = 100
    /// Where `GET /metrics` is served instead of the public port; nil: on the public port.
    public var metricsListen: ListenAddress?
    /// Called once the metrics server of ``metricsListen`` listens, with the bound port.
    public var onMetricsListening: @Sendable (_ host: String, _ port: Int) async -> Void = { _, _ in }
    /// Where the service logs.
    public var logger = Logger(label: "authd")

    /// Every setting at its default.
    public init() {}

    /// Metrics recorded into ``metricsRegistry``.
    public var metrics: AuthMetrics {
        AuthMetrics(factory: PrometheusMetricsFactory(registry: metricsRegistry))
    }
}
