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
        help: "PostgreSQL URL (postgres://user:password@host:port/database). Default: $DATABASE_URL, else a private cluster in --data-dir."
    )
    var databaseURL: String?

    @Option(name: .customLong("data-dir"), help: "Folder of the embedded PostgreSQL cluster, used when no database URL is given.")
    var dataDirectory = ".authd"

    /// Runs `body` with a database configuration; with the embedded default, starts the
    /// cluster first and stops it afterwards if this process started it.
    func withDatabase<T>(
        logger: Logger,
        _ body: (DatabaseTarget) async throws -> T
    ) async throws -> T {
        let url = databaseURL ?? ProcessInfo.processInfo.environment["DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        if let url {
            do {
                return try await body(try DatabaseURL.parse(url))
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
            let result = try await body(DatabaseTarget(client: cluster.configuration(database: "authd")))
            try cluster.stop()
            return result
        } catch {
            try? cluster.stop()
            throw error
        }
    }

    /// Runs `body` with the storage running on the database, migrated.
    func withMigratedStorage<T: Sendable>(logger: Logger, _ body: @escaping @Sendable (PostgresStorage) async throws -> T) async throws -> T {
        try await withDatabase(logger: logger) { target in
            try await PostgresStorage(target: target, logger: logger).withRunning { storage in
                try await storage.migrate()
                return try await body(storage)
            }
        }
    }
}
