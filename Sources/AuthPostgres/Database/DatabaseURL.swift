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
/// The pool: `pool_max_conns` (default 10) and `pool_min_conns` (default 0; `authd serve`
/// keeps all `pool_max_conns` open unless it is given: ``DatabaseTarget/withFixedPool``),
/// as pgx names them. `keepalives=0|1` and `keepalives_idle=SECONDS` (default 30), as
/// libpq names them: an idle connection is pinged with `SELECT 1` so that a middlebox's
/// silent drop is found before a request needs it. The default is on over TCP to another
/// host and off over loopback and Unix sockets, where nothing lies between the two ends to
/// drop a connection silently (and each ping's timer costs every query).
///
/// Several servers, as libpq takes them: `postgres://app@db1:5432,db2:5432/auth`, or
/// `?host=/run/a,/run/b` for sockets, with `target_session_attrs` (`any`, `read-write`,
/// `read-only`, `primary`, `standby`, `prefer-standby`) saying which will do. They are
/// tried in order, and tried again in order when the one in use stops answering (or, for
/// `read-write` and `primary`, refuses a write): after a replica's promotion the pool
/// moves to it without a restart (``Database``). With several servers and no
/// `target_session_attrs`, `multiHostDefault` applies (libpq's is `any`).
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
    public static func parse(_ text: String, multiHostDefault: TargetSessionAttributes = .any) throws -> DatabaseTarget {
        let (single, servers) = try splitHosts(text)
        var target = try parseOne(single)
        let query = Dictionary(
            (URLComponents(string: single)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        if let sockets = query["host"], sockets.hasPrefix("/"), sockets.contains(",") {
            let port = URLComponents(string: single)?.port ?? 5432
            target.hosts = try sockets.split(separator: ",", omittingEmptySubsequences: false).map { folder in
                guard folder.hasPrefix("/") else {
                    throw Invalid(description: "every host of ?host= must be a socket folder (starting with /), not '\(folder)'")
                }
                return .socket("\(folder)/.s.PGSQL.\(port)")
            }
        } else if servers.count > 1 {
            target.hosts = servers
        }
        if let text = query["target_session_attrs"] {
            guard let attributes = TargetSessionAttributes(rawValue: text) else {
                let names = TargetSessionAttributes.allCases.map(\.rawValue).joined(separator: ", ")
                throw Invalid(description: "unsupported target_session_attrs '\(text)' (use \(names))")
            }
            target.sessionAttributes = attributes
        } else if target.hosts.count > 1 {
            target.sessionAttributes = multiHostDefault
        }
        return target
    }

    /// `text` with only the first of its authority's servers (what `URLComponents` reads),
    /// and every server, each with its port or 5432.
    private static func splitHosts(_ text: String) throws -> (String, [DatabaseHost]) {
        guard let schemeEnd = text.range(of: "://") else { return (text, []) }
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { "/?#".contains($0) } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let hostsStart = authority.lastIndex(of: "@").map { authority.index(after: $0) } ?? authority.startIndex
        let hostList = authority[hostsStart...]
        guard let firstEnd = hostList.firstIndex(of: ",") else { return (text, []) }
        let servers = try hostList.split(separator: ",", omittingEmptySubsequences: false).map { entry -> DatabaseHost in
            guard let parsed = URLComponents(string: "postgres://\(entry)"), let host = parsed.host, !host.isEmpty else {
                throw Invalid(description: "the database URL's host list has an entry that is not host or host:port: '\(entry)'")
            }
            return .tcp(unbracketed(host), port: parsed.port ?? 5432)
        }
        return (String(text[..<hostList.startIndex] + hostList[..<firstEnd] + text[authorityEnd...]), servers)
    }

    private static func parseOne(_ text: String) throws -> DatabaseTarget {
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

        if let sockets = query["host"], sockets.hasPrefix("/") {
            let socketDirectory = sockets.split(separator: ",").first.map(String.init) ?? sockets
            return try DatabaseTarget(
                client: PostgresClient.Configuration(
                    unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: username, password: password, database: database
                ),
                connectionTLS: .disable
            ).withPool(query, remote: false)
        }
        guard let host = components.host.map(unbracketed), !host.isEmpty else {
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
        return try DatabaseTarget(
            client: PostgresClient.Configuration(
                host: host, port: port, username: username, password: password, database: database, tls: tls.clientTLS),
            connectionTLS: tls
        ).withPool(query, remote: !isLoopback(host))
    }

    /// An IPv6 address without the brackets a URL puts around it, as a socket address takes it.
    static func unbracketed(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    /// `host` names this machine: `localhost`, an address in 127.0.0.0/8, or `::1`.
    static func isLoopback(_ host: String) -> Bool {
        let bare = unbracketed(host)
        if bare.lowercased() == "localhost" || bare == "::1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
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

extension DatabaseTarget {
    /// This target with the URL's pool and keep-alive parameters (`query`), keep-alive on by
    /// default only when the server is `remote`.
    fileprivate func withPool(_ query: [String: String], remote: Bool) throws -> DatabaseTarget {
        var target = self
        var options = target.client.options
        options.maximumConnections = DatabaseTarget.defaultPoolSize
        if let text = query["pool_max_conns"] {
            guard let maximum = Int(text), maximum >= 1 else {
                throw DatabaseURL.Invalid(description: "pool_max_conns must be a whole number of at least 1, not '\(text)'")
            }
            options.maximumConnections = maximum
        }
        if let text = query["pool_min_conns"] {
            guard let minimum = Int(text), (0...options.maximumConnections).contains(minimum) else {
                throw DatabaseURL.Invalid(
                    description:
                        "pool_min_conns must be a whole number from 0 to pool_max_conns (\(options.maximumConnections)), not '\(text)'"
                )
            }
            options.minimumConnections = minimum
            target.minimumConnectionsGiven = true
        }
        var keepAlive = remote
        switch query["keepalives"] {
        case nil: break
        case "1": keepAlive = true
        case "0": keepAlive = false
        case let other?: throw DatabaseURL.Invalid(description: "keepalives must be 0 or 1, not '\(other)'")
        }
        var behavior = PostgresClient.Configuration.Options.KeepAliveBehavior()
        if let text = query["keepalives_idle"] {
            guard let seconds = Int(text), seconds >= 1 else {
                throw DatabaseURL.Invalid(description: "keepalives_idle must be a whole number of seconds, at least 1, not '\(text)'")
            }
            behavior.frequency = .seconds(seconds)
        }
        options.keepAliveBehavior = keepAlive ? behavior : nil
        target.client.options = options
        return target
    }
}
