import ArgumentParser
import AuthPostgres

extension Authd {
    /// `authd migrate`: apply pending migrations and exit.
    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Apply pending database migrations.")

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let logger = logging.makeLogger()
            let applied = try await database.withMigratedStorage(logger: logger) { storage in
                try await MigrationRunner(database: storage.database).appliedVersions()
            }
            print("schema up to date: \(applied.last ?? "none") (\(applied.count) migrations)")
        }
    }
}
