import ArgumentParser
import AuthCore
import Foundation

/// `--breached-passwords` / `AUTHD_BREACHED_PASSWORDS`: the policy of passwords being set.
struct PasswordOptions: ParsableArguments {
    @Option(
        name: .customLong("breached-passwords"),
        help: ArgumentHelp(
            "Refuse new passwords found in this offline SHA-1 list (Have I Been Pwned's 'ordered by hash' download, SHA1HEX:COUNT lines). Default: $AUTHD_BREACHED_PASSWORDS, else none.",
            valueName: "file"
        )
    )
    var breachedPasswords: String?

    /// The list given by the option, else by the environment variable (empty means none).
    var breachedPasswordsPath: String? {
        breachedPasswords ?? Environment.value("AUTHD_BREACHED_PASSWORDS")
    }

    /// The built-in rules, with the breached list opened and checked if one is given.
    /// - Throws: ``CLIError`` naming the file when it cannot be used.
    func screen() throws -> PasswordScreen {
        guard let path = breachedPasswordsPath else { return PasswordScreen() }
        do {
            return PasswordScreen(breached: try BreachedPasswordList(path: path))
        } catch {
            throw CLIError(error.description)
        }
    }
}
