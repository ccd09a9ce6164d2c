import Crypto
import Foundation
import Logging
import PostgresNIO
import ProcessKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A private PostgreSQL cluster in a folder (authd's default `./.authd/`), reached over a
/// Unix socket inside that folder, with no TCP listener.
///
/// ``start()`` creates the cluster with `initdb` on first use and starts it with `pg_ctl`;
/// if it is already running (another authd, an `authd user add` beside `authd serve`) it is
/// reused and left running. ``stop()`` stops it only if this value started it. As root,
/// PostgreSQL runs as the unprivileged `postgres` account (or `nobody`), because it
/// refuses root; if that account cannot reach the folder, the cluster moves to a
/// per-folder directory under the system temporary directory and ``notice`` says so.
///
/// ```swift
/// let cluster = try EmbeddedPostgres(directory: URL(fileURLWithPath: ".authd"))
/// try cluster.start()
/// let client = PostgresClient(configuration: cluster.configuration(database: "postgres"), backgroundLogger: logger)
/// // …
/// try cluster.stop()
/// ```
public final class EmbeddedPostgres: Sendable {
    /// The folder holding `data/`, the socket and `postgres.log`.
    public let directory: String
    /// Set when the cluster lives elsewhere than asked, saying where and why.
    public let notice: String?
    /// The database superuser (trusted on the socket only).
    public let user = "authd"
    /// Whether writes are flushed to disk (off for throwaway test clusters).
    public let durable: Bool
    /// The server programs used.
    public let binaries: PostgresBinaries
    private let runAs: RunAs?
    private let startedHere = Mutex(false)
    /// The extra `-c name=value` server settings.
    private let settings: [String: String]

    /// Prepares (without starting) a cluster in `directory`.
    /// - Parameters:
    ///   - durable: false for throwaway clusters (no fsync).
    ///   - settings: extra `-c name=value` server settings.
    public init(directory requested: URL, durable: Bool = true, settings: [String: String] = [:]) throws {
        self.binaries = try PostgresBinaries.locate()
        self.durable = durable
        self.settings = settings
        let runAs = geteuid() == 0 ? try RunAs.unprivileged() : nil
        self.runAs = runAs

        let absolute = requested.standardizedFileURL.path
        let fallback = FileManager.default.temporaryDirectory
            .appendingPathComponent("authd-\(Self.pathDigest(absolute))").path
        var chosen = absolute
        var notice: String?
        // A Unix socket path is limited to 107 bytes.
        if (absolute + "/.s.PGSQL.5432").utf8.count > 100 {
            chosen = fallback
            notice = "the path \(absolute) is too long for a Unix socket; PostgreSQL data lives in \(fallback)"
        } else if let runAs, !runAs.canReach(absolute) {
            chosen = fallback
            notice = "user '\(runAs.name)' cannot reach \(absolute); PostgreSQL data lives in \(fallback)"
        }
        self.directory = chosen
        self.notice = notice
    }

    /// The folder of the cluster's data files.
    public var dataDirectory: String { directory + "/data" }
    /// The server log.
    public var logFile: String { directory + "/postgres.log" }
    /// The socket's folder (the cluster's folder).
    public var socketDirectory: String { directory }
    /// The socket's path.
    public var socketPath: String { directory + "/.s.PGSQL.5432" }

    /// Whether a server is running on this cluster's data: what `pg_ctl status` checks (the
    /// process `postmaster.pid` names is alive), without starting it, which as root means
    /// `runuser` and its session set-up: half an `authd user add`'s time beside a running
    /// server went there.
    public var isRunning: Bool {
        guard FileManager.default.fileExists(atPath: dataDirectory + "/PG_VERSION"),
            let file = try? String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8),
            let first = file.split(separator: "\n", maxSplits: 1).first,
            let pid = pid_t(first.trimmingCharacters(in: .whitespaces)), pid > 0
        else { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    /// Creates the cluster if needed and starts it unless it is running already.
    public func start() throws {
        try withFolderLock {
            if !FileManager.default.fileExists(atPath: dataDirectory + "/PG_VERSION") {
                try initialize()
            }
            guard !isRunning else { return }
            var options = ["-k '\(socketDirectory)'", "-c listen_addresses=''", "-p 5432", "-c unix_socket_permissions=0770"]
            if !durable {
                options += ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]
            }
            options += settings.sorted { $0.key < $1.key }.map { "-c \($0.key)=\($0.value)" }
            let result = try run(
                binaries.pgCtl,
                ["-D", dataDirectory, "-l", logFile, "-w", "-t", "60", "-o", options.joined(separator: " "), "start"]
            )
            guard result.status == 0 else {
                let log = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
                throw EmbeddedPostgresError.commandFailed(step: "pg_ctl start", output: result.output + String(log.suffix(1000)))
            }
            startedHere.withLock { $0 = true }
        }
    }

    /// Stops the server if ``start()`` started it; a cluster found running is left alone.
    public func stop() throws {
        guard
            startedHere.withLock({ started in
                defer { started = false }
                return started
            })
        else { return }
        let result = try run(binaries.pgCtl, ["-D", dataDirectory, "-m", "fast", "-w", "-t", "60", "stop"])
        guard result.status == 0 else {
            throw EmbeddedPostgresError.commandFailed(step: "pg_ctl stop", output: result.output)
        }
    }

    /// A streaming replica of this running cluster, in `directory`: its data copied with
    /// `pg_basebackup -R` (which points the copy's `primary_conninfo` at this cluster's
    /// socket), with the same durability and settings. ``start()`` starts it as a hot
    /// standby; ``promote()`` makes it a primary. For tests of replicas and failover.
    ///
    /// ```swift
    /// let replica = try primary.standby(in: folder.appending("replica"))
    /// try replica.start()
    /// ```
    public func standby(in directory: URL) throws -> EmbeddedPostgres {
        let replica = try EmbeddedPostgres(directory: directory, durable: durable, settings: settings)
        try replica.withFolderLock {
            try replica.prepareFolder()
            var arguments = [
                "-D", replica.dataDirectory, "-R", "-X", "stream", "-c", "fast", "-h", socketDirectory, "-p", "5432", "-U", user,
            ]
            if !durable { arguments.append("--no-sync") }
            let result = try replica.run(binaries.pgBasebackup, arguments)
            guard result.status == 0 else {
                throw EmbeddedPostgresError.commandFailed(step: "pg_basebackup", output: result.output)
            }
        }
        return replica
    }

    /// Makes this standby a primary (`pg_ctl promote`), returning once it takes writes.
    public func promote() throws {
        let result = try run(binaries.pgCtl, ["-D", dataDirectory, "-w", "-t", "60", "promote"])
        guard result.status == 0 else {
            throw EmbeddedPostgresError.commandFailed(step: "pg_ctl promote", output: result.output)
        }
    }

    /// Stops the server whoever started it (for tests of an outage).
    public func forceStop() throws {
        startedHere.withLock { $0 = true }
        try stop()
    }

    /// How to connect to `database` over the socket, without keep-alive pings (nothing
    /// between the two ends of a Unix socket can drop a connection silently, and each ping's
    /// timer costs every query).
    public func configuration(database: String) -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(unixSocketPath: socketPath, username: user, password: nil, database: database)
        configuration.options.keepAliveBehavior = nil
        return configuration
    }

    /// A `postgresql://` URL for `database` on this cluster (for `psql` or `--database-url`).
    public func url(database: String) -> String {
        var components = URLComponents()
        components.scheme = "postgresql"
        components.user = user
        components.host = ""
        components.path = "/" + database
        components.queryItems = [URLQueryItem(name: "host", value: socketDirectory)]
        return components.string ?? "postgresql:///\(database)"
    }

    /// Creates `name` unless it exists: empty, or a copy of the database `template` (which no
    /// session may be connected to meanwhile).
    ///
    /// ```swift
    /// try await cluster.createDatabase("authd", logger: logger)
    /// ```
    public func createDatabase(_ name: String, template: String? = nil, logger: Logger) async throws {
        var configuration = PostgresConnection.Configuration(
            unixSocketPath: socketPath, username: user, password: nil, database: "postgres")
        // The cluster is on this machine and running: a slow answer is a busy machine (a
        // test suite's), not an outage.
        configuration.options.connectTimeout = .seconds(60)
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        do {
            var exists = false
            for try await _ in try await connection.query("SELECT 1 FROM pg_database WHERE datname = \(name)", logger: logger) {
                exists = true
            }
            if !exists {
                // Names cannot be bound parameters: each is quoted as an identifier.
                let copied = template.map { " TEMPLATE " + Self.quotedIdentifier($0) } ?? ""
                try await connection.query(
                    PostgresQuery(unsafeSQL: "CREATE DATABASE \(Self.quotedIdentifier(name))\(copied)"), logger: logger)
            }
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }

    private static func quotedIdentifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    private func initialize() throws {
        try prepareFolder()
        var arguments = ["-D", dataDirectory, "-U", user, "--auth-local=trust", "--auth-host=reject", "-E", "UTF8", "--locale=C"]
        if !durable { arguments.append("--no-sync") }
        let result = try run(binaries.initdb, arguments)
        guard result.status == 0 else {
            throw EmbeddedPostgresError.commandFailed(step: "initdb", output: result.output)
        }
    }

    /// The cluster's folder, made or taken over, without `data/`, and the unprivileged
    /// account's when we are root.
    private func prepareFolder() throws {
        let fileManager = FileManager.default
        if fileManager.fileExists(atPath: directory) {
            // Only an empty folder, or the leftovers of a set-up that failed, is taken over
            // (and, as root, handed to the unprivileged account).
            let leftovers: Set = ["data", "postgres.log", ".s.PGSQL.5432", ".s.PGSQL.5432.lock"]
            guard try fileManager.contentsOfDirectory(atPath: directory).allSatisfy(leftovers.contains) else {
                throw EmbeddedPostgresError.folderInUse(directory)
            }
        } else {
            try fileManager.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try? fileManager.removeItem(atPath: dataDirectory)
        if let runAs {
            guard chown(directory, runAs.uid, runAs.gid) == 0 else {
                throw EmbeddedPostgresError.commandFailed(step: "chown \(directory)", output: String(cString: strerror(errno)))
            }
        }
        chmod(directory, 0o700)
    }

    /// Runs a PostgreSQL program, as the unprivileged account when we are root.
    /// As the unprivileged account it starts in `/`, since it may not be allowed into ours.
    private func run(_ program: String, _ arguments: [String]) throws -> CommandRunner.Result {
        guard let runAs else { return try CommandRunner.run(program, arguments) }
        let (launcher, prefix) = runAs.launcher()
        return try CommandRunner.run(launcher, prefix + ["/usr/bin/env", "-C", "/", program] + arguments)
    }

    /// Serialises set-up between processes sharing the folder.
    private func withFolderLock<T>(_ body: () throws -> T) throws -> T {
        let lockPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("authd-\(Self.pathDigest(directory)).lock").path
        let fd = open(lockPath, O_CREAT | O_RDWR, 0o600)
        guard fd >= 0 else { return try body() }
        defer { close(fd) }
        flock(fd, LOCK_EX)
        defer { flock(fd, LOCK_UN) }
        return try body()
    }

    /// The account PostgreSQL runs as when we are root.
    private struct RunAs: Sendable {
        let name: String
        let uid: uid_t
        let gid: gid_t

        static func unprivileged() throws -> RunAs {
            for name in ["postgres", "nobody"] {
                if let entry = getpwnam(name) {
                    return RunAs(name: name, uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid)
                }
            }
            throw EmbeddedPostgresError.noUnprivilegedUser
        }

        /// `runuser -u NAME --` where it exists, else `setpriv`.
        func launcher() -> (String, [String]) {
            if let runuser = CommandRunner.which("runuser")
                ?? ["/usr/sbin/runuser", "/sbin/runuser"].first(where: FileManager.default.isExecutableFile)
            {
                return (runuser, ["-u", name, "--"])
            }
            let setpriv = CommandRunner.which("setpriv") ?? "/usr/bin/setpriv"
            return (setpriv, ["--reuid=\(uid)", "--regid=\(gid)", "--clear-groups"])
        }

        /// Whether every folder above `path` lets this account through.
        func canReach(_ path: String) -> Bool {
            var url = URL(fileURLWithPath: path).deletingLastPathComponent()
            while true {
                var info = stat()
                if stat(url.path, &info) == 0 {
                    let mode = info.st_mode
                    let allowed =
                        info.st_uid == uid
                        ? mode & S_IXUSR != 0
                        : info.st_gid == gid
                            ? mode & S_IXGRP != 0
                            : mode & S_IXOTH != 0
                    if !allowed { return false }
                }
                if url.path == "/" { return true }
                url.deleteLastPathComponent()
            }
        }
    }

    /// A short, stable name for a path: the first 8 bytes of its SHA-256, in hex.
    private static func pathDigest(_ path: String) -> String {
        SHA256.hash(data: Data(path.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
    }
}
