import Foundation
import NIOSSL
import PostgresNIO

/// Parses `postgres://` / `postgresql://` URLs into a PostgresNIO configuration.
///
/// Supported: user, password, host, port (default 5432), database (default: the user name),
/// `?host=/socket/dir` for a Unix socket, and `sslmode` as libpq reads it (default `prefer`):
/// `disable`; `allow`/`prefer` (TLS when the server offers it, unverified); `require`
/// (TLS, unverified); `verify-ca` (the certificate must chain to a trusted root);
/// `verify-full` (and name the host). `sslrootcert=FILE` gives the trusted roots (PEM)
/// instead of the system's.
///
/// ```swift
/// let target = try DatabaseURL.parse("postgres://app:secret@db.internal:5432/auth?sslmode=verify-full&sslrootcert=/etc/ssl/db-ca.pem")
/// let storage = PostgresStorage(target: target, logger: logger)
/// ```
public enum DatabaseURL {
    /// A URL that cannot be used; the message never repeats the password.
    public struct Invalid: Error, CustomStringConvertible {
        /// What is wrong.
        public let description: String
    }

    /// Parses `text`: the pool's configuration, and the same TLS for single connections.
    public static func parse(_ text: String) throws -> DatabaseTarget {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw Invalid(description: "the database URL is not a valid URL (expected postgres://user:password@host:port/database)")
        }
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw Invalid(description: "the database URL must start with postgres:// or postgresql://, not \(scheme)://")
        }
        let query = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last }
        )
        guard let username = components.user.flatMap({ $0.removingPercentEncoding }), !username.isEmpty else {
            throw Invalid(description: "the database URL must name a user (postgres://USER@host/database)")
        }
        let password = components.password?.removingPercentEncoding
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        let database = path.isEmpty ? username : (path.removingPercentEncoding ?? path)
        let port = components.port ?? 5432

        if let socketDirectory = query["host"], socketDirectory.hasPrefix("/") {
            return DatabaseTarget(
                client: PostgresClient.Configuration(
                    unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: username, password: password, database: database
                ),
                connectionTLS: .disable
            )
        }
        guard let host = components.host, !host.isEmpty else {
            throw Invalid(description: "the database URL must name a host, or a socket folder with ?host=/path")
        }
        let tls: DatabaseTarget.ConnectionTLS
        switch query["sslmode"]?.lowercased() ?? "prefer" {
        case "disable": tls = .disable
        case "allow", "prefer": tls = .prefer(try tlsConfiguration(verification: .none, rootFile: nil))
        case "require": tls = .require(try tlsConfiguration(verification: .none, rootFile: nil))
        case "verify-ca": tls = .require(try tlsConfiguration(verification: .noHostnameVerification, rootFile: query["sslrootcert"]))
        case "verify-full": tls = .require(try tlsConfiguration(verification: .fullVerification, rootFile: query["sslrootcert"]))
        case let other:
            throw Invalid(description: "unsupported sslmode '\(other)' (use disable, allow, prefer, require, verify-ca or verify-full)")
        }
        return DatabaseTarget(
            client: PostgresClient.Configuration(host: host, port: port, username: username, password: password, database: database, tls: tls.clientTLS),
            connectionTLS: tls
        )
    }

    private static func tlsConfiguration(verification: CertificateVerification, rootFile: String?) throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = verification
        if let rootFile {
            do {
                let roots = try NIOSSLCertificate.fromPEMFile(rootFile)
                configuration.trustRoots = .certificates(roots)
            } catch {
                throw Invalid(description: "cannot read sslrootcert '\(rootFile)': \(error)")
            }
        }
        return configuration
    }
}
