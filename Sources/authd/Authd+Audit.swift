import ArgumentParser
import AuthCore
import AuthPostgres
import Foundation

extension Authd {
    /// `authd audit [--limit N] [--user NAME]`.
    struct Audit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the newest security events (logins, refreshes, reuse, logouts, account and key changes)."
        )

        @Option(help: "How many events to show.")
        var limit = 50

        @Option(help: "Only the events of this account.")
        var user: String?

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var logging: LoggingOptions

        func validate() throws {
            guard (1...10_000).contains(limit) else { throw ValidationError("--limit must be between 1 and 10000.") }
        }

        func run() async throws {
            var usernameKey: String?
            if let user {
                do {
                    usernameKey = try Username(user).key
                } catch let error as AuthError {
                    throw CLIError(error.description)
                }
            }
            let logger = logging.makeLogger()
            let limit = self.limit
            let key = usernameKey
            let events = try await database.withMigratedStorage(logger: logger) { storage in
                try await storage.audit.recent(limit: limit, usernameKey: key)
            }
            let formatter = ISO8601DateFormatter()
            print(
                "TIME                  EVENT                   USER                                  USERNAME      CLIENT           REQUEST           DETAIL"
            )
            for event in events {
                let columns: [(String, Int)] = [
                    (formatter.string(from: event.at), 20),
                    (event.kind.rawValue, 22),
                    (event.userID?.uuidString.lowercased() ?? "-", 36),
                    (TerminalText.escaped(event.usernameKey ?? "-"), 12),
                    (TerminalText.escaped(event.origin.clientAddress ?? "-"), 15),
                    (TerminalText.escaped(event.origin.requestID ?? "-"), 16),
                ]
                let line = columns.map { $0.0.padding(toLength: max($0.1, $0.0.count), withPad: " ", startingAt: 0) }.joined(
                    separator: "  ")
                print(line + "  " + TerminalText.escaped(event.detail ?? "-"))
            }
        }
    }
}
