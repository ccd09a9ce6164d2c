import AuthPostgres
import AuthTestSupport
import Foundation
import Logging
import PostgresEmbedded
import PostgresNIO
import ProcessKit
import Testing

@Suite struct EmbeddedPostgresTests {
    @Test func createsStartsReusesAndStops() async throws {
        let temporary = try TemporaryFolder.forCluster("authd-embedded")
        defer { temporary.remove() }
        let folder = temporary.appending("folder")
        let first = try EmbeddedPostgres(directory: folder, durable: false)
        try first.start()
        #expect(first.isRunning)
        #expect(FileManager.default.fileExists(atPath: first.socketPath))

        // A second user of the same folder (say `authd user add` beside `authd serve`)
        // finds it running, uses it, and leaves it running.
        let second = try EmbeddedPostgres(directory: folder, durable: false)
        try second.start()
        try await second.createDatabase("authd", logger: Logger(label: "tests"))
        try await TestCluster.withDatabase(second.configuration(database: "authd")) { database in
            try await database.check()
        }
        try second.stop()
        #expect(first.isRunning)

        try first.stop()
        #expect(!first.isRunning)
        // Data survives a restart.
        try first.start()
        try await TestCluster.withDatabase(first.configuration(database: "authd")) { database in
            try await database.check()
        }
        try first.stop()
    }

    @Test func leavesAFolderOfOtherFilesAlone() throws {
        let temporary = try TemporaryFolder("authd-busy")
        defer { temporary.remove() }
        let folder = temporary.url
        try "keep me".write(to: folder.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
        let before = try FileManager.default.attributesOfItem(atPath: folder.path)
        #expect {
            try EmbeddedPostgres(directory: folder, durable: false).start()
        } throws: { error in
            "\(error)".contains("already holds other files")
        }
        let after = try FileManager.default.attributesOfItem(atPath: folder.path)
        #expect(before[.ownerAccountID] as? Int == after[.ownerAccountID] as? Int)
        #expect(before[.posixPermissions] as? Int == after[.posixPermissions] as? Int)
        #expect(try String(contentsOf: folder.appendingPathComponent("notes.txt"), encoding: .utf8) == "keep me")
    }

    /// A cluster whose server is gone (killed, the machine restarted) left its
    /// `postmaster.pid`: it is not running, and starting it starts a server.
    @Test func aStalePidFileIsNotARunningServer() async throws {
        let temporary = try TemporaryFolder.forCluster("authd-stale")
        defer { temporary.remove() }
        let cluster = try EmbeddedPostgres(directory: temporary.appending("folder"), durable: false)
        try cluster.start()
        let pidFile = cluster.dataDirectory + "/postmaster.pid"
        let contents = try String(contentsOfFile: pidFile, encoding: .utf8)
        try cluster.stop()
        #expect(!cluster.isRunning)
        // The server's own file, naming a process that has exited (a child reaped here).
        let exited = try ChildProcess(executable: "/bin/true", arguments: [])
        _ = await exited.waitForExit()
        var lines = contents.split(separator: "\n", omittingEmptySubsequences: false)
        lines[0] = Substring(String(exited.pid))
        try lines.joined(separator: "\n").write(toFile: pidFile, atomically: true, encoding: .utf8)
        #expect(!cluster.isRunning)
        // Its own process id is one that lives.
        lines[0] = Substring(String(getpid()))
        try lines.joined(separator: "\n").write(toFile: pidFile, atomically: true, encoding: .utf8)
        #expect(cluster.isRunning)
        try FileManager.default.removeItem(atPath: pidFile)
        try cluster.start()
        try await TestCluster.withDatabase(cluster.configuration(database: "postgres")) { try await $0.check() }
        try cluster.stop()
    }

    /// The server programs on `PATH` are taken without running `pg_config` (every `authd`
    /// command beside a running server looks them up).
    @Test func programsOnPathSpareRunningPgConfig() throws {
        let temporary = try TemporaryFolder("authd-binaries")
        defer { temporary.remove() }
        let bin = temporary.appending("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let ran = temporary.appending("pg_config-ran").path
        for (name, script) in [("initdb", "exit 0"), ("pg_ctl", "exit 0"), ("pg_config", "touch '\(ran)'; echo /nonexistent")] {
            let path = bin.appendingPathComponent(name).path
            try "#!/bin/sh\n\(script)\n".write(toFile: path, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        }
        let found = try PostgresBinaries.locate(environment: ["PATH": bin.path], debianRoot: "/nonexistent")
        #expect(found.directory == bin.resolvingSymlinksInPath().path)
        #expect(!FileManager.default.fileExists(atPath: ran))

        // Without them on PATH, pg_config is asked.
        try FileManager.default.removeItem(at: bin.appendingPathComponent("initdb"))
        #expect(throws: EmbeddedPostgresError.self) {
            try PostgresBinaries.locate(environment: ["PATH": bin.path], debianRoot: "/nonexistent")
        }
        #expect(FileManager.default.fileExists(atPath: ran))
    }

    @Test func saysHowToInstallWhenNoBinariesExist() {
        #expect {
            try PostgresBinaries.locate(environment: ["PATH": "/nonexistent"], debianRoot: "/nonexistent")
        } throws: { error in
            "\(error)".contains("apt-get install postgresql") && "\(error)".contains("--database-url")
        }
        #expect(throws: EmbeddedPostgresError.self) {
            try PostgresBinaries.locate(environment: ["AUTHD_POSTGRES_BIN": "/nonexistent"])
        }
    }
}

@Suite struct DatabaseURLTests {
    @Test func parsesTCPURLs() throws {
        let configuration = try DatabaseURL.parse("postgres://app:s%40cret@db.internal:6543/auth?sslmode=disable").client
        #expect(configuration.host == "db.internal")
        #expect(configuration.port == 6543)
        #expect(configuration.username == "app")
        #expect(configuration.password == "s@cret")
        #expect(configuration.database == "auth")
    }

    @Test func parsesSocketURLsAndDefaults() throws {
        let configuration = try DatabaseURL.parse("postgresql://authd@/authd?host=/tmp/pg").client
        #expect(configuration.unixSocketPath == "/tmp/pg/.s.PGSQL.5432")
        #expect(try DatabaseURL.parse("postgres://app@localhost").client.database == "app")
    }

    /// The outage probe's single connections get the URL's sslmode, not the clear.
    @Test(arguments: [
        ("disable", "disable"), ("prefer", "prefer"), ("allow", "prefer"), ("require", "require"), ("verify-ca", "require"),
        ("verify-full", "require"),
    ])
    func singleConnectionsKeepTheSSLMode(mode: String, expected: String) throws {
        let target = try DatabaseURL.parse("postgres://app@db.internal/auth?sslmode=\(mode)")
        let kind =
            switch target.connectionTLS {
            case .disable: "disable"
            case .prefer: "prefer"
            case .require(let configuration):
                mode == "verify-full" && configuration.certificateVerification != .fullVerification ? "unverified" : "require"
            }
        #expect(kind == expected)
        #expect(try DatabaseURL.parse("postgres://app@/auth?host=/tmp/pg").connectionTLS.isDisabled)
    }

    /// Keep-alive pings guard against a middlebox dropping an idle connection silently: on
    /// by default to another host, off where no middlebox can be (loopback, a Unix socket).
    @Test(arguments: [
        ("postgres://app@db.internal/auth", 30), ("postgres://app@10.0.0.7/auth", 30), ("postgres://app@128.0.0.1/auth", 30),
        ("postgres://app@localhost/auth", nil), ("postgres://app@127.0.0.1/auth", nil), ("postgres://app@127.1.2.3/auth", nil),
        ("postgres://app@[::1]/auth", nil), ("postgres://app@/auth?host=/tmp/pg", nil),
        ("postgres://app@db.internal/auth?keepalives=0", nil), ("postgres://app@127.0.0.1/auth?keepalives=1", 30),
        ("postgres://app@db.internal/auth?keepalives_idle=5", 5), ("postgres://app@localhost/auth?keepalives=1&keepalives_idle=120", 120),
    ])
    func keepAliveIsOnOnlyWhereAConnectionCanBeDroppedSilently(url: String, seconds: Int?) throws {
        let behavior = try DatabaseURL.parse(url).client.options.keepAliveBehavior
        #expect(behavior?.frequency == seconds.map { .seconds($0) })
    }

    /// The pool's size comes from the URL; `serve` keeps every connection open unless the
    /// URL sets a minimum, so no query pays for an idle timer.
    @Test func poolSizeFromTheURLAndFixedForServing() throws {
        let defaults = try DatabaseURL.parse("postgres://app@db.internal/auth")
        #expect(defaults.client.options.maximumConnections == 10)
        #expect(defaults.client.options.minimumConnections == 0)
        #expect(defaults.withFixedPool.client.options.minimumConnections == 10)

        let sized = try DatabaseURL.parse("postgres://app@db.internal/auth?pool_max_conns=6")
        #expect(sized.client.options.maximumConnections == 6)
        #expect(sized.withFixedPool.client.options.minimumConnections == 6)

        let floor = try DatabaseURL.parse("postgres://app@db.internal/auth?pool_max_conns=6&pool_min_conns=2")
        #expect(floor.client.options.minimumConnections == 2)
        #expect(floor.withFixedPool.client.options.minimumConnections == 2)
        #expect(
            try DatabaseURL.parse("postgres://app@db.internal/auth?pool_min_conns=0").withFixedPool.client.options.minimumConnections == 0)
    }

    /// The embedded cluster is reached over a Unix socket: no keep-alive (its pool of 10 is
    /// `serveRunsItsOwnPostgreSQLByDefault`'s to count).
    @Test func theEmbeddedClustersPoolHasNoKeepAlive() async throws {
        #expect(try await TestCluster.started().configuration(database: "authd").options.keepAliveBehavior == nil)
    }

    @Test(arguments: [
        ("pool_max_conns=0", "pool_max_conns must be a whole number of at least 1, not '0'"),
        ("pool_max_conns=many", "pool_max_conns must be a whole number of at least 1, not 'many'"),
        ("pool_max_conns=4&pool_min_conns=5", "pool_min_conns must be a whole number from 0 to pool_max_conns (4), not '5'"),
        ("pool_min_conns=-1", "pool_min_conns must be a whole number from 0 to pool_max_conns (10), not '-1'"),
        ("keepalives=yes", "keepalives must be 0 or 1, not 'yes'"),
        ("keepalives_idle=0", "keepalives_idle must be a whole number of seconds, at least 1, not '0'"),
    ])
    func refusesUnusablePoolParameters(query: String, message: String) {
        #expect {
            try DatabaseURL.parse("postgres://app:topsecret@db.internal/auth?\(query)")
        } throws: { error in
            "\(error)" == message
        }
    }

    @Test(arguments: ["mysql://u@h/d", "postgres://h/d", "postgres://u@/d", "postgres://u@h/d?sslmode=bogus", "not a url"])
    func rejectsUnusableURLsWithoutEchoingSecrets(url: String) {
        #expect(throws: DatabaseURL.Invalid.self) { try DatabaseURL.parse(url) }
    }

    /// Several servers, as libpq takes them, tried in order for the session they ask.
    @Test func parsesServerListsAndTheirSessionAttributes() throws {
        let tcp = try DatabaseURL.parse("postgres://app:secret@db1:5433,db2,[fd00::7]:5434/auth?target_session_attrs=primary")
        #expect(tcp.hosts == [.tcp("db1", port: 5433), .tcp("db2", port: 5432), .tcp("fd00::7", port: 5434)])
        #expect(tcp.sessionAttributes == .primary)
        #expect(tcp.client.host == "db1" && tcp.client.password == "secret" && tcp.client.database == "auth")
        #expect(try DatabaseURL.parse("postgres://app@[fd00::7]:5434/auth").client.host == "fd00::7")

        let sockets = try DatabaseURL.parse("postgresql://authd@/authd?host=/run/a,/run/b")
        #expect(sockets.hosts == [.socket("/run/a/.s.PGSQL.5432"), .socket("/run/b/.s.PGSQL.5432")])
        #expect(sockets.client.unixSocketPath == "/run/a/.s.PGSQL.5432")
        #expect(sockets.sessionAttributes == .any)
        #expect(
            try DatabaseURL.parse("postgresql://authd@/authd?host=/run/a,/run/b", multiHostDefault: .readWrite).sessionAttributes
                == .readWrite)

        let one = try DatabaseURL.parse("postgres://app@db1/auth", multiHostDefault: .readWrite)
        #expect(one.hosts == [.tcp("db1", port: 5432)])
        #expect(one.sessionAttributes == .any)
        #expect(try DatabaseURL.parse("postgres://app@db1/auth?target_session_attrs=prefer-standby").sessionAttributes == .preferStandby)
    }

    @Test(arguments: [
        ("postgres://u:topsecret@db1,/d", "the database URL's host list has an entry that is not host or host:port: ''"),
        ("postgres://u:topsecret@/d?host=/a,b", "every host of ?host= must be a socket folder (starting with /), not 'b'"),
        (
            "postgres://u:topsecret@db1/d?target_session_attrs=writable",
            "unsupported target_session_attrs 'writable' (use any, read-write, read-only, primary, standby, prefer-standby)"
        ),
    ])
    func refusesUnusableServerLists(url: String, message: String) {
        #expect {
            try DatabaseURL.parse(url)
        } throws: { error in
            "\(error)" == message
        }
    }

    @Test func errorTextNeverContainsThePassword() {
        #expect {
            try DatabaseURL.parse("postgres://u:topsecret@/d")
        } throws: { error in
            !"\(error)".contains("topsecret")
        }
    }
}
