import ArgumentParser
import AuthCore
import AuthPostgres
import Foundation

extension Authd {
    /// `authd keys …`: the signing keys of access tokens.
    struct Keys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Manage the signing keys of access tokens.",
            subcommands: [Rotate.self, List.self]
        )
    }
}

extension Authd.Keys {
    /// `authd keys rotate`.
    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a new current signing key; the previous one stays published until the next rotation.",
            discussion: """
                Every running instance signs with the new key and publishes it within its \
                --key-reload-interval (10 s by default). Tokens signed with the previous key keep \
                verifying until they expire; rotate no more often than the access token lifetime.
                """
        )

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let key = try await database.withKeys(logger: logging.makeLogger()) { try await $0.rotate() }
            print("new current signing key \(key.kid)")
        }
    }

    /// `authd keys list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List signing keys, newest first, with their status.")

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let entries = try await database.withKeys(logger: logging.makeLogger()) { try await $0.list() }
            let formatter = ISO8601DateFormatter()
            print("KID               STATUS     CREATED")
            for entry in entries {
                let kid = entry.key.kid.padding(toLength: 16, withPad: " ", startingAt: 0)
                let status = entry.status.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
                print("\(kid)  \(status)  \(formatter.string(from: entry.key.createdAt))")
            }
        }
    }
}
