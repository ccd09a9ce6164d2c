import AuthPostgres
import Foundation
import Logging
import PostgresEmbedded
import PostgresNIO
import ProcessKit

#if canImport(Glibc)
    import Glibc
#endif

/// The throwaway PostgreSQL cluster shared by every test in the process, started on first
/// use through the same ``PostgresEmbedded/EmbeddedPostgres`` that `authd serve` uses, and
/// stopped when the test process exits. Each test gets a database of its own.
///
/// ```swift
/// let database = try await TestCluster.newDatabase()
/// let storage = PostgresStorage(configuration: database.configuration, timeout: TestCluster.operationTimeout, logger: TestCluster.logger)
/// ```
public enum TestCluster {
    /// The deadline of the tests' database operations: long, because the suite runs many
    /// tests at once on few cores and a test asserts behaviour, not speed (the outage
    /// tests set their own).
    public static let operationTimeout: Duration = .seconds(30)

    /// The tests' logger: warnings and worse only.
    public static let logger: Logger = {
        var logger = Logger(label: "tests")
        logger.logLevel = .warning
        return logger
    }()

    /// A fresh, empty database on the shared cluster.
    public struct TestDatabase: Sendable {
        /// Its name.
        public let name: String
        /// How PostgresNIO reaches it.
        public let configuration: PostgresClient.Configuration
        /// A `postgresql://` URL for it (for the CLI's `--database-url`).
        public let url: String

        /// A database of another cluster (``ReplicatedCluster``'s).
        public init(name: String, configuration: PostgresClient.Configuration, url: String) {
            self.name = name
            self.configuration = configuration
            self.url = url
        }
    }

    private static let cluster: Result<EmbeddedPostgres, any Error> = Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authd-tests-\(getpid())")
        // Every test holds pools of its own at once (8 connections each, an authd child its
        // default), more of them since the tests wait for children off the pool: at the
        // suite's start, with every test running, 1,000 were once all taken (sqlstate 53300),
        // so there is room for twice that. Each database lives for one test: none needs
        // vacuuming (autovacuum's ANALYZE of them was about 2 % of the suite's CPU).
        let cluster = try EmbeddedPostgres(
            directory: directory, durable: false, settings: ["max_connections": "2000", "autovacuum": "off"])
        try cluster.start()
        atexit {
            if case .success(let cluster) = TestCluster.cluster {
                try? cluster.stop()
                try? FileManager.default.removeItem(atPath: cluster.directory)
            }
        }
        return cluster
    }

    /// The shared cluster, started if needed.
    public static func shared() throws -> EmbeddedPostgres {
        try cluster.get()
    }

    /// The shared cluster, started if needed on a thread of its own (``ProcessKit/OwnThread``): `initdb` and `pg_ctl`
    /// block for seconds (over fifteen on a loaded machine), and on a thread of Swift's
    /// cooperative pool they would hold up every other test's tasks meanwhile (a 0.1 s
    /// timeout then fired after 16 s).
    public static func started() async throws -> EmbeddedPostgres {
        try await OwnThread.run { try cluster.get() }
    }

    /// Creates a new empty database on the shared cluster.
    public static func newDatabase() async throws -> TestDatabase {
        try await newDatabase(copying: nil)
    }

    /// Creates a new database on the shared cluster holding authd's schema, every migration
    /// applied: a copy of a database migrated once per test process. Copying takes about a
    /// fifth of the CPU of migrating (34 ms against 170 ms of PostgreSQL's, measured with psql),
    /// and the suite makes over 200 of them. Tests of the migrations themselves start from
    /// ``newDatabase()``.
    ///
    /// ```swift
    /// let database = try await TestCluster.newMigratedDatabase()
    /// let (server, base) = try await AuthdBinary.serve(["--database-url", database.url])
    /// ```
    public static func newMigratedDatabase() async throws -> TestDatabase {
        try await newDatabase(copying: migratedTemplate.value)
    }

    /// Runs `body` with a running, migrated ``AuthPostgres/Database`` on a new database.
    public static func withMigratedDatabase<T: Sendable>(
        _ body: @Sendable (Database, TestDatabase) async throws -> T
    ) async throws -> T {
        let testDatabase = try await newMigratedDatabase()
        return try await withDatabase(testDatabase.configuration) { database in
            try await body(database, testDatabase)
        }
    }

    private static func newDatabase(copying template: String?) async throws -> TestDatabase {
        let cluster = try await started()
        let name = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        do {
            try await cluster.createDatabase(name, template: template, logger: logger)
        } catch {
            // PostgresNIO's errors describe themselves generically unless asked for detail.
            throw DatabaseNotCreated(description: "creating \(name)\(template.map { " from \($0)" } ?? ""): \(String(reflecting: error))")
        }
        var configuration = cluster.configuration(database: name)
        configuration.options.maximumConnections = 8
        // A connection waits for a backend behind the whole suite's: far past the default 10 s
        // before it is taken for an outage (which the availability tests make on clusters of
        // their own).
        configuration.options.connectTimeout = .seconds(60)
        return TestDatabase(name: name, configuration: configuration, url: cluster.url(database: name))
    }

    /// The name of the database that ``newMigratedDatabase()`` copies, migrated on first use.
    /// PostgreSQL copies only a database that no session is connected to, and waits 5 s for
    /// them to end. A ``AuthPostgres/Database`` waits at most 5 s for its pool to close its
    /// connections, and under the suite's start-up load (every test starting at once) one of
    /// the migration's stayed over 30 s: what is left is ended, and the name returned once
    /// PostgreSQL shows no session on it (nothing else knows the name).
    private static let migratedTemplate = Task<String, any Error> {
        let template = try await newDatabase(copying: nil)
        try await withDatabase(template.configuration) { database in
            _ = try await MigrationRunner(database: database).migrate()
        }
        let cluster = try await started()
        try await withDatabase(cluster.configuration(database: "postgres")) { database in
            let clock = ContinuousClock()
            let deadline = clock.now + operationTimeout
            while clock.now < deadline {
                var sessions = 0
                let rows = try await database.client.query(
                    "SELECT count(pg_terminate_backend(pid))::int FROM pg_stat_activity WHERE datname = \(template.name)"
                )
                for try await count in rows.decode(Int.self) { sessions = count }
                if sessions == 0 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        return template.name
    }

    /// A database the cluster could not create, with PostgreSQL's reason.
    struct DatabaseNotCreated: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `body` with a ``AuthPostgres/Database`` whose client runs for the duration.
    public static func withDatabase<T: Sendable>(
        _ configuration: PostgresClient.Configuration,
        timeout: Duration = operationTimeout,
        _ body: @Sendable (Database) async throws -> T
    ) async throws -> T {
        try await withDatabase(DatabaseTarget(client: configuration), timeout: timeout, body)
    }

    /// Runs `body` with a ``AuthPostgres/Database`` on `target` whose client runs for the duration.
    public static func withDatabase<T: Sendable>(
        _ target: DatabaseTarget,
        timeout: Duration = operationTimeout,
        _ body: @Sendable (Database) async throws -> T
    ) async throws -> T {
        try await PostgresStorage(target: target, timeout: timeout, logger: logger).withRunning { storage in
            try await body(storage.database)
        }
    }
}
