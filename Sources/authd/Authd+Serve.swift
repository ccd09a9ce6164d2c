import ArgumentParser
import AuthPostgres
import AuthServer
import Foundation
import Hummingbird

extension Authd {
    /// `authd serve`: migrate, then answer HTTP until SIGINT or SIGTERM.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the login service (migrates the database first)."
        )

        @Option(help: "Address to listen on.")
        var host = "127.0.0.1"

        @Option(help: "Port to listen on (0 picks a free one).")
        var port = 8080

        @Option(name: .customLong("issuer"), help: "The iss claim of access tokens.")
        var issuer = "authd"

        @Option(name: .customLong("access-token-ttl"), help: "Access token lifetime in seconds.")
        var accessTokenLifetime = 900

        @Option(name: .customLong("refresh-token-ttl"), help: "Refresh token lifetime in seconds.")
        var refreshTokenLifetime = 30 * 24 * 3600

        @Option(name: .customLong("hash-queue"), help: "Logins that may wait for a hashing slot before others get 503.")
        var hashQueue = 64

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var hashing: HashOptions
        @OptionGroup var logging: LoggingOptions

        func validate() throws {
            guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
            guard accessTokenLifetime > 0, refreshTokenLifetime > 0 else {
                throw ValidationError("token lifetimes must be positive.")
            }
            guard hashQueue >= 0 else { throw ValidationError("--hash-queue must not be negative.") }
        }

        func run() async throws {
            let logger = logging.makeLogger()
            try await database.withDatabase(logger: logger) { databaseConfiguration in
                var configuration = AppConfiguration()
                configuration.host = host
                configuration.port = port
                configuration.issuer = issuer
                configuration.accessTokenLifetime = accessTokenLifetime
                configuration.refreshTokenLifetime = refreshTokenLifetime
                configuration.hashParameters = hashing.parameters
                configuration.hashingQueueLimit = hashQueue
                configuration.logger = logger
                configuration.onListening = { host, port in
                    // Unbuffered, so a supervisor (or a test) reading a pipe sees it at once.
                    FileHandle.standardOutput.write(Data("authd listening on http://\(host):\(port)\n".utf8))
                }
                let storage = PostgresStorage(configuration: databaseConfiguration, logger: logger)
                let app = try await buildApplication(configuration: configuration, storage: storage)
                try await app.runService()
            }
        }
    }
}
