import NIOSSL
import PostgresNIO

/// Where the database is and how to reach it: the pool's configuration, and the same TLS
/// for the single connections the outage probe makes (a `PostgresClient`'s TLS setting
/// cannot be read back, so ``DatabaseURL`` keeps both).
///
/// ```swift
/// let target = try DatabaseURL.parse("postgres://app@db.internal/auth?sslmode=verify-full")
/// let database = Database(target: target)
/// ```
public struct DatabaseTarget: Sendable {
    /// TLS for a single connection, as libpq's `sslmode` groups it.
    public enum ConnectionTLS: Sendable {
        /// In the clear.
        case disable
        /// TLS when the server offers it.
        case prefer(TLSConfiguration)
        /// TLS or no connection.
        case require(TLSConfiguration)
    }

    /// The pool's configuration.
    public var client: PostgresClient.Configuration
    /// The TLS of a single connection: the same mode and settings as the pool's.
    public var connectionTLS: ConnectionTLS
    /// The pool's size unless the URL sets `pool_max_conns`, and on the embedded cluster:
    /// ten connections keep a PostgreSQL of a few cores busy, and ten instances of authd fit
    /// within PostgreSQL's default 100 connections with a fixed pool each.
    public static let defaultPoolSize = 10

    /// Whether the URL set the pool's minimum (`pool_min_conns`), which
    /// ``withFixedPool`` then keeps.
    public var minimumConnectionsGiven = false

    /// The servers to try, in order (libpq's host list): the first whose session has
    /// ``sessionAttributes`` is used, and another is looked for when it stops answering.
    /// One server, `client`'s, unless the URL names several.
    public var hosts: [DatabaseHost]
    /// Which server of ``hosts`` will do (libpq's `target_session_attrs`).
    public var sessionAttributes: TargetSessionAttributes = .any

    /// A target whose single connections use `connectionTLS`.
    public init(client: PostgresClient.Configuration, connectionTLS: ConnectionTLS) {
        self.client = client
        self.connectionTLS = connectionTLS
        self.hosts = [DatabaseHost(of: client)]
    }

    /// A target for a configuration whose TLS is not known here: a Unix socket needs none;
    /// over TCP, single connections require TLS with the system's roots and the host's
    /// name, failing closed rather than talking in the clear.
    public init(client: PostgresClient.Configuration) {
        self.init(client: client, connectionTLS: client.unixSocketPath != nil ? .disable : .require(.makeClientConfiguration()))
    }

    /// This target with a pool that keeps all its connections open (the minimum raised to
    /// the maximum), unless the URL set `pool_min_conns`: what `authd serve` runs on. A pool
    /// that may shrink arms an idle timer on each connection it gets back, so every query
    /// paid for a timer's task and its cancellation; a fixed pool is also what HikariCP
    /// advises for a service under load.
    ///
    /// ```swift
    /// let storage = PostgresStorage(target: try DatabaseURL.parse(url).withFixedPool, logger: logger)
    /// ```
    public var withFixedPool: DatabaseTarget {
        var target = self
        if !minimumConnectionsGiven { target.client.options.minimumConnections = target.client.options.maximumConnections }
        return target
    }

    /// Whether connecting means choosing among servers: several of them, or one whose
    /// session must have something ``TargetSessionAttributes/any`` does not ask.
    var choosesHost: Bool { hosts.count > 1 || sessionAttributes != .any }

    /// The pool's configuration for `host`: `client`'s credentials, database, TLS and
    /// options, at that address.
    func client(at host: DatabaseHost) -> PostgresClient.Configuration {
        if host == DatabaseHost(of: client) { return client }
        var configuration: PostgresClient.Configuration
        switch host {
        case .tcp(let name, let port):
            configuration = PostgresClient.Configuration(
                host: name, port: port, username: client.username, password: client.password, database: client.database, tls: client.tls)
        case .socket(let path):
            configuration = PostgresClient.Configuration(
                unixSocketPath: path, username: client.username, password: client.password, database: client.database)
        }
        configuration.options = client.options
        return configuration
    }

    /// The TLS a `PostgresConnection` takes.
    func connectionConfigurationTLS() throws -> PostgresConnection.Configuration.TLS {
        switch connectionTLS {
        case .disable: .disable
        case .prefer(let configuration): .prefer(try NIOSSLContext(configuration: configuration))
        case .require(let configuration): .require(try NIOSSLContext(configuration: configuration))
        }
    }
}

extension DatabaseTarget.ConnectionTLS {
    /// The same mode and settings for a `PostgresClient`'s pool.
    ///
    /// ```swift
    /// PostgresClient.Configuration(host: host, username: user, password: nil, database: db, tls: tls.clientTLS)
    /// ```
    public var clientTLS: PostgresClient.Configuration.TLS {
        switch self {
        case .disable: .disable
        case .prefer(let configuration): .prefer(configuration)
        case .require(let configuration): .require(configuration)
        }
    }

    /// Whether single connections go in the clear.
    public var isDisabled: Bool {
        if case .disable = self { true } else { false }
    }
}
