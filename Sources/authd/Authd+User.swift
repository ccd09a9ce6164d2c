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
            subcommands: [Add.self, Disable.self, Enable.self, Delete.self, RevokeSessions.self, Credentials.self, List.self]
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

        @Flag(
            name: .customLong("password-only"),
            help:
                "With --update-existing: the account then signs in with this password alone (its authenticator app is turned off, its passkeys removed, as by user credentials NAME --remove all)."
        )
        var passwordOnly = false

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var hashing: HashOptions
        @OptionGroup var passwords: PasswordOptions
        @OptionGroup var logging: LoggingOptions

        func validate() throws {
            guard passwordFromStdin else {
                throw ValidationError("Pass the password on standard input with --password-stdin.")
            }
            guard !passwordOnly || updateExisting else {
                throw ValidationError("--password-only is for an account that exists: pass --update-existing with it.")
            }
        }

        func run() async throws {
            let screen = try passwords.screen()
            let (name, password, updateExisting, passwordOnly) = (
                self.name, try Self.readPassword(), self.updateExisting, self.passwordOnly
            )
            let message = try await database.withAccounts(hashing: hashing.parameters, passwords: screen, logger: logging.makeLogger()) {
                accounts in
                if updateExisting {
                    let (user, created) = try await accounts.createOrSetPassword(username: name, password: password)
                    if created { return Self.created(user) }
                    let updated = "updated user \(TerminalText.escaped(try Username(name).description))"
                    guard passwordOnly else { return updated }
                    let removed = try await accounts.removeTOTPAndPasskeys(username: name)
                    return updated + ", and " + Credentials.removal(totp: removed.totp, passkeys: removed.passkeys)
                }
                do {
                    return Self.created(try await accounts.create(username: name, password: password))
                } catch let error as AuthError where error.code == .usernameTaken {
                    throw CLIError("a user named '\(try Username(name))' already exists")
                }
            }
            print(message)
        }

        private static func created(_ user: User) -> String {
            "created user \(TerminalText.escaped(user.username)) (\(user.id.uuidString.lowercased()))"
        }

        /// Standard input up to its end, without one trailing line break.
        /// - Throws: ``CLIError`` when it cannot be read (a folder, a closed descriptor).
        static func readPassword() throws -> String {
            let data: Data?
            do {
                data = try FileHandle.standardInput.readToEnd()
            } catch {
                // Foundation wraps the system's error (EISDIR for a folder): its text is the reason.
                let posix = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError).flatMap {
                    $0.domain == NSPOSIXErrorDomain ? $0 : nil
                }
                throw CLIError("standard input could not be read: \(posix.map { String(cString: strerror(Int32($0.code))) } ?? "\(error)")")
            }
            var text = String(decoding: data ?? Data(), as: UTF8.self)
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

        @OptionGroup var account: AccountOptions

        func run() async throws {
            let user = try await account.withAccount { try await $0.disable(username: $1) }
            print("disabled user \(TerminalText.escaped(user.username))")
        }
    }

    /// `authd user enable NAME`.
    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Allow logins to a disabled account again.")

        @OptionGroup var account: AccountOptions

        func run() async throws {
            let user = try await account.withAccount { try await $0.enable(username: $1) }
            print("enabled user \(TerminalText.escaped(user.username))")
        }
    }

    /// `authd user delete NAME`.
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete an account and its refresh tokens (the audit log keeps its events)."
        )

        @OptionGroup var account: AccountOptions

        func run() async throws {
            let user = try await account.withAccount { try await $0.delete(username: $1) }
            print("deleted user \(TerminalText.escaped(user.username)) (\(user.id.uuidString.lowercased()))")
        }
    }

    /// `authd user revoke-sessions NAME`.
    struct RevokeSessions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke-sessions",
            abstract: "End every session of an account: its refresh tokens stop working at once.",
            discussion:
                "Access tokens already issued stay valid until they expire (serve's --access-token-ttl). Setting a password (user add --update-existing) ends the sessions too."
        )

        @OptionGroup var account: AccountOptions

        func run() async throws {
            let (user, revoked) = try await account.withAccount { try await $0.revokeSessions(username: $1) }
            print("ended \(revoked) \(revoked == 1 ? "session" : "sessions") of \(TerminalText.escaped(user.username))")
        }
    }

    /// `authd user list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List accounts.")

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let users = try await database.withAccounts(logger: logging.makeLogger()) { try await $0.list() }
            let formatter = ISO8601DateFormatter()
            let names = users.map { TerminalText.escaped($0.username) }
            let width = max(8, names.map(\.count).max() ?? 0)
            print("USERNAME".padding(toLength: width, withPad: " ", startingAt: 0) + "  STATUS    CREATED               ID")
            for (user, name) in zip(users, names) {
                let status = user.isDisabled ? "disabled" : "active  "
                print(
                    name.padding(toLength: width, withPad: " ", startingAt: 0)
                        + "  \(status)  \(formatter.string(from: user.createdAt))  \(user.id.uuidString.lowercased())"
                )
            }
        }
    }

    /// What the commands about one account take: its name, and where the database is.
    struct AccountOptions: ParsableArguments {
        @Argument(help: "The username.")
        var name: String

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var logging: LoggingOptions

        /// Runs `body` with the account rules on the database and the username given.
        func withAccount<T: Sendable>(_ body: @escaping @Sendable (AccountService<PostgresStorage>, String) async throws -> T) async throws
            -> T
        {
            let name = self.name
            return try await database.withAccounts(logger: logging.makeLogger()) { try await body($0, name) }
        }
    }
}
