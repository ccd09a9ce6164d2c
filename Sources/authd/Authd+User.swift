import ArgumentParser
import AuthCore
import AuthPostgres
import Foundation

extension Authd {
    /// `authd user …`: manage accounts.
    struct UserCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "user",
            abstract: "Manage accounts.",
            subcommands: [Add.self, Disable.self, Enable.self, List.self]
        )
    }
}

extension Authd.UserCommand {
    /// `authd user add NAME --password-stdin`.
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an account; the password is read from standard input."
        )

        @Argument(help: "The username (unique, case-insensitively).")
        var name: String

        @Flag(name: .customLong("password-stdin"), help: "Read the password from standard input (required).")
        var passwordFromStdin = false

        @Flag(name: .customLong("update-existing"), help: "If the user exists, set its password and enable it instead of failing.")
        var updateExisting = false

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var hashing: HashOptions
        @OptionGroup var logging: LoggingOptions

        func validate() throws {
            guard passwordFromStdin else {
                throw ValidationError("Pass the password on standard input with --password-stdin.")
            }
        }

        func run() async throws {
            let username: Username
            let password = Self.readPassword()
            do {
                username = try Username(name)
                try PasswordPolicy.validateNew(password)
            } catch let error as AuthError {
                throw CLIError(error.description)
            }
            let logger = logging.makeLogger()
            let hasher = Argon2idHasher(parameters: hashing.parameters)
            let updateExisting = self.updateExisting
            let message = try await database.withMigratedStorage(logger: logger) { storage in
                let phc = try await BlockingWorkPool(width: 1, queueLimit: 0).run { try hasher.hash(password) }
                let users = storage.users
                do {
                    let user = try await users.create(username: username, passwordHash: phc)
                    return "created user \(user.username) (\(user.id.uuidString.lowercased()))"
                } catch let error as RepositoryError where error == .duplicateUsername {
                    guard updateExisting, try await users.resetPassword(usernameKey: username.key, passwordHash: phc) else {
                        throw CLIError("a user named '\(username)' already exists")
                    }
                    return "updated user \(username)"
                }
            }
            print(message)
        }

        /// Standard input up to its end, without one trailing line break.
        static func readPassword() -> String {
            var text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            if text.hasSuffix("\r\n") {
                text.removeLast(2)
            } else if text.hasSuffix("\n") {
                text.removeLast()
            }
            return text
        }
    }

    /// `authd user disable NAME`.
    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Refuse logins to an account (its data stays).")

        @Argument(help: "The username.")
        var name: String

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            try await setDisabled(true, name: name, database: database, logging: logging)
            print("disabled user \(name)")
        }
    }

    /// `authd user enable NAME`.
    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Allow logins to a disabled account again.")

        @Argument(help: "The username.")
        var name: String

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            try await setDisabled(false, name: name, database: database, logging: logging)
            print("enabled user \(name)")
        }
    }

    /// `authd user list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List accounts.")

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let logger = logging.makeLogger()
            let users = try await database.withMigratedStorage(logger: logger) { storage in
                try await storage.users.all()
            }
            let formatter = ISO8601DateFormatter()
            let width = max(8, users.map(\.username.count).max() ?? 0)
            print("USERNAME".padding(toLength: width, withPad: " ", startingAt: 0) + "  STATUS    CREATED               ID")
            for user in users {
                let status = user.isDisabled ? "disabled" : "active  "
                print(
                    user.username.padding(toLength: width, withPad: " ", startingAt: 0)
                        + "  \(status)  \(formatter.string(from: user.createdAt))  \(user.id.uuidString.lowercased())"
                )
            }
        }
    }

    private static func setDisabled(_ disabled: Bool, name: String, database: DatabaseOptions, logging: LoggingOptions) async throws {
        let username: Username
        do {
            username = try Username(name)
        } catch let error as AuthError {
            throw CLIError(error.description)
        }
        let logger = logging.makeLogger()
        let found = try await database.withMigratedStorage(logger: logger) { storage in
            guard try await storage.users.setDisabled(disabled, usernameKey: username.key) else { return false }
            let user = try await storage.users.user(withKey: username.key)
            try await storage.audit.record(
                SecurityEvent(kind: disabled ? .userDisabled : .userEnabled, at: Date(), userID: user?.id, usernameKey: username.key)
            )
            return true
        }
        guard found else { throw CLIError("no user named '\(username)'") }
    }
}
