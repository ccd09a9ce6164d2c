import ArgumentParser
import AuthPostgres
import Foundation
import Logging
import PostgresEmbedded
import PostgresNIO

/// `--database-url` / `DATABASE_URL`, or the embedded cluster in `--data-dir`.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .customLong("database-url"),
        help:
            "PostgreSQL URL (postgres://user:password@host:port/database; several servers as host1:port1,host2:port2, the one taking writes used). Default: $DATABASE_URL, else a private cluster in --data-dir."
    )
    var databaseURL: String?

    @Option(name: .customLong("data-dir"), help: "Folder of the embedded PostgreSQL cluster, used when no database URL is given.")
    var dataDirectory = ".authd"

    /// The database URL given: `--database-url`, else a non-empty `DATABASE_URL`; nil means
    /// the embedded cluster.
    var url: String? {
        databaseURL ?? Environment.value("DATABASE_URL")
    }

    /// Runs `body` with a database configuration; with the embedded default, starts the
    /// cluster first and stops it afterwards if this process started it.
    func withDatabase<T>(
        logger: Logger,
        _ body: (DatabaseTarget) async throws -> T
    ) async throws -> T {
        try await withDatabaseAndCluster(logger: logger) { target, _ in try await body(target) }
    }

    /// ``withDatabase(logger:_:)``, also handing `body` the embedded cluster (nil with a URL).
    func withDatabaseAndCluster<T>(
        logger: Logger,
        _ body: (DatabaseTarget, EmbeddedPostgres?) async throws -> T
    ) async throws -> T {
        if let url {
            do {
                // authd writes: of several servers, the one that takes writes.
                return try await body(try DatabaseURL.parse(url, multiHostDefault: .readWrite), nil)
            } catch let error as DatabaseURL.Invalid {
                throw CLIError(error.description)
            }
        }
        let cluster: EmbeddedPostgres
        do {
            cluster = try EmbeddedPostgres(directory: URL(fileURLWithPath: dataDirectory))
            if let notice = cluster.notice { logger.notice("\(notice)") }
            try cluster.start()
            try await cluster.createDatabase("authd", logger: logger)
        } catch let error as EmbeddedPostgresError {
            throw CLIError(error.description)
        }
        logger.info("embedded PostgreSQL running", metadata: ["url": "\(cluster.url(database: "authd"))"])
        do {
            var client = cluster.configuration(database: "authd")
            client.options.maximumConnections = DatabaseTarget.defaultPoolSize
            let result = try await body(DatabaseTarget(client: client), cluster)
            try cluster.stop()
            return result
        } catch {
            try? cluster.stop()
            throw error
        }
    }

    /// Runs `body` with the storage running on the database, migrated.
    func withMigratedStorage<T: Sendable>(logger: Logger, _ body: @escaping @Sendable (PostgresStorage) async throws -> T) async throws -> T
    {
        try await withDatabase(logger: logger) { target in
            try await Self.withMigratedStorage(target: target, logger: logger, body)
        }
    }

    /// How long an operator's command waits for one database operation: longer than a
    /// request's 5 s, since no client waits on it and a busy database still answers.
    static let operationTimeout: Duration = .seconds(30)

    /// Runs `body` with the storage running on `target`, migrated.
    static func withMigratedStorage<T: Sendable>(
        target: DatabaseTarget, logger: Logger, _ body: @escaping @Sendable (PostgresStorage) async throws -> T
    ) async throws -> T {
        try await PostgresStorage(target: target, timeout: operationTimeout, logger: logger).withRunning { storage in
            try await storage.migrate()
            return try await body(storage)
        }
    }
}
