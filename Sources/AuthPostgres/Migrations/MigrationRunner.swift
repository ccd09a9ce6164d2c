import Logging
import PostgresNIO

/// Applies ``Migration``s in order, all in one transaction under an advisory lock, and
/// records each in `schema_migrations`; then, in the same transaction, every
/// ``SQLFunction``'s current body. Concurrent runners (several processes starting at once)
/// serialise on the lock; the later ones find no migration left to do.
///
/// ```swift
/// let applied = try await MigrationRunner(database: database).migrate()
/// print("applied \(applied.count) migrations")
/// ```
public struct MigrationRunner: Sendable {
    /// The database.
    public let database: Database
    /// The migrations to apply.
    public let migrations: [Migration]
    /// The functions whose bodies are applied after them.
    public let functions: [SQLFunction]

    /// Creates a runner for `migrations` and `functions` (default: all of authd's).
    public init(database: Database, migrations: [Migration] = Migration.all, functions: [SQLFunction] = SQLFunction.all) {
        self.database = database
        self.migrations = migrations
        self.functions = functions
    }

    /// How long applying the due migrations may take.
    public static let deadline = Duration.seconds(300)

    /// Applies the migrations not yet recorded; returns the versions applied now.
    @discardableResult
    public func migrate() async throws -> [String] {
        let logger = database.logger
        let migrations = self.migrations
        let functions = self.functions
        // Schema changes may take longer than a request's statement (an index over a large
        // table; a machine under load): they get a deadline of their own.
        let applied = try await database.run(deadline: Self.deadline) { client in
            try await client.withTransaction(logger: logger) { connection -> [String] in
                try await connection.query("SELECT pg_advisory_xact_lock(\(AdvisoryLock.migrations))", logger: logger)
                try await connection.query(
                    """
                    CREATE TABLE IF NOT EXISTS schema_migrations (
                        version text PRIMARY KEY,
                        applied_at timestamptz NOT NULL DEFAULT now()
                    )
                    """,
                    logger: logger
                )
                var done = Set<String>()
                for try await version in try await connection.query("SELECT version FROM schema_migrations", logger: logger).decode(
                    String.self)
                {
                    done.insert(version)
                }
                var appliedNow: [String] = []
                for migration in migrations where !done.contains(migration.version) {
                    // Migration SQL is our own embedded file, never user input.
                    for statement in SQLScript.statements(in: migration.sql) {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query(
                        "INSERT INTO schema_migrations (version) VALUES (\(migration.version))",
                        logger: logger
                    )
                    appliedNow.append(migration.version)
                }
                // The functions' bodies as their files have them: a change there reaches a
                // database whose migrations were all applied before it.
                for function in functions where done.contains(function.since) || appliedNow.contains(function.since) {
                    try await connection.query(PostgresQuery(unsafeSQL: function.sql), logger: logger)
                }
                return appliedNow
            }
        }
        for version in applied {
            logger.info("applied migration", metadata: ["version": "\(version)"])
        }
        return applied
    }

    /// The versions recorded in `schema_migrations`, in order.
    public func appliedVersions() async throws -> [String] {
        let logger = database.logger
        return try await database.run { client in
            var versions: [String] = []
            let rows = try await client.query(
                "SELECT version FROM schema_migrations ORDER BY version", logger: logger
            )
            for try await version in rows.decode(String.self) { versions.append(version) }
            return versions
        }
    }
}
