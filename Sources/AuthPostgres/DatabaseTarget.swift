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

    /// A target whose single connections use `connectionTLS`.
    public init(client: PostgresClient.Configuration, connectionTLS: ConnectionTLS) {
        self.client = client
        self.connectionTLS = connectionTLS
    }

    /// A target for a configuration whose TLS is not known here: a Unix socket needs none;
    /// over TCP, single connections require TLS with the system's roots and the host's
    /// name, failing closed rather than talking in the clear.
    public init(client: PostgresClient.Configuration) {
        self.init(client: client, connectionTLS: client.unixSocketPath != nil ? .disable : .require(.makeClientConfiguration()))
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
