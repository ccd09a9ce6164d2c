import Foundation
import NIOSSL
import PostgresNIO

/// Parses `postgres://` / `postgresql://` URLs into a PostgresNIO configuration.
///
/// Supported: user, password, host, port (default 5432), database (default: the user name),
/// `?host=/socket/dir` for a Unix socket, and `?sslmode=disable|prefer|require` (default
/// `prefer`, as libpq; `require` also verifies the server certificate).
///
/// ```swift
/// let config = try DatabaseURL.parse("postgres://app:secret@db.internal:5432/auth?sslmode=require")
/// ```
public enum DatabaseURL {
    /// A URL that cannot be used; the message never repeats the password.
    public struct Invalid: Error, CustomStringConvertible {
        /// What is wrong.
        public let description: String
    }

    /// Parses `text`.
    public static func parse(_ text: String) throws -> PostgresClient.Configuration {
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
            return PostgresClient.Configuration(
                unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: username, password: password, database: database
            )
        }
        guard let host = components.host, !host.isEmpty else {
            throw Invalid(description: "the database URL must name a host, or a socket folder with ?host=/path")
        }
        let tls: PostgresClient.Configuration.TLS
        switch query["sslmode"]?.lowercased() ?? "prefer" {
        case "disable": tls = .disable
        case "allow", "prefer": tls = .prefer(.makeClientConfiguration())
        case "require", "verify-ca", "verify-full": tls = .require(.makeClientConfiguration())
        case let other: throw Invalid(description: "unsupported sslmode '\(other)' (use disable, prefer or require)")
        }
        return PostgresClient.Configuration(host: host, port: port, username: username, password: password, database: database, tls: tls)
    }
}
