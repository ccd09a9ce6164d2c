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
    /// `authd keys rotate [--revoke-current | --revoke-all]`.
    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a new current signing key; the previous one stays published until the next rotation.",
            discussion: """
                Every running instance signs with the new key and publishes it within its \
                --key-reload-interval (10 s by default). Tokens signed with the previous key keep \
                verifying until they expire; rotate no more often than the access token lifetime. \
                The key before the previous one is deleted: nothing verifies with it any more.
                """
        )

        @Flag(
            name: .customLong("revoke-current"),
            help:
                "For a leaked key: delete the current key at once, so every instance stops accepting tokens it signed within its --key-reload-interval."
        )
        var revokeCurrent = false

        @Flag(
            name: .customLong("revoke-all"),
            help:
                "Delete every key, opened or not (all leaked, or their key-encryption key lost): every access token signed so far stops verifying."
        )
        var revokeAll = false

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var keyEncryption: KeyEncryptionKeyOptions
        @OptionGroup var logging: LoggingOptions

        func validate() throws {
            guard !(revokeCurrent && revokeAll) else { throw ValidationError("--revoke-current and --revoke-all exclude each other.") }
        }

        func run() async throws {
            let (revokeCurrent, revokeAll) = (self.revokeCurrent, self.revokeAll)
            let revocation = try await database.withKeys(keyEncryption, logger: logging.makeLogger()) { keys in
                try await revokeAll ? keys.revokeAll() : revokeCurrent ? keys.revokeCurrent() : keys.rotateAll()
            }
            for key in revocation.added {
                print("new current signing key \(key.kid) (\(key.algorithm.rawValue))")
            }
            let revoked = revocation.revokedKids
            for kid in revoked {
                print("revoked and deleted signing key \(kid)")
            }
        }
    }

    /// `authd keys list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List signing keys, newest first, with their status.")

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var keyEncryption: KeyEncryptionKeyOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let entries = try await database.withKeys(keyEncryption, logger: logging.makeLogger()) { try await $0.list() }
            let formatter = ISO8601DateFormatter()
            print("KID               ALG    STATUS     CREATED")
            for entry in entries {
                let kid = entry.key.kid.padding(toLength: 16, withPad: " ", startingAt: 0)
                let algorithm = entry.key.algorithm.rawValue.padding(toLength: 5, withPad: " ", startingAt: 0)
                let status = entry.status.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
                print("\(kid)  \(algorithm)  \(status)  \(formatter.string(from: entry.key.createdAt))")
            }
        }
    }
}
