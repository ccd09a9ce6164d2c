import ArgumentParser
import AuthCore
import Foundation

extension Authd {
    /// `authd sessions …`: an account's sessions, as its owner sees them in `GET /sessions`.
    struct SessionsCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sessions",
            abstract: "See an account's sessions.",
            subcommands: [List.self]
        )
    }
}

extension Authd.SessionsCommand {
    /// `authd sessions list NAME`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List an account's live sessions, newest first.",
            discussion: "End them with `authd user revoke-sessions NAME`, or the owner with DELETE /sessions."
        )

        @OptionGroup var account: Authd.UserCommand.AccountOptions

        func run() async throws {
            let (user, sessions) = try await account.withAccount { try await $0.sessions(username: $1) }
            let formatter = ISO8601DateFormatter()
            print("ID                                    CREATED               LAST USED             CLIENT           USER AGENT")
            for session in sessions {
                let client = TerminalText.escaped(session.clientAddress ?? "-")
                print(
                    "\(session.id.uuidString.lowercased())  \(formatter.string(from: session.createdAt))  "
                        + "\(formatter.string(from: session.lastUsedAt))  \(client.padding(toLength: 15, withPad: " ", startingAt: 0))  "
                        + TerminalText.escaped(session.userAgent ?? "-")
                )
            }
            print("\(sessions.count) \(sessions.count == 1 ? "session" : "sessions") of \(TerminalText.escaped(user.username))")
        }
    }
}
