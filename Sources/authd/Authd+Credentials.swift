import ArgumentParser
import AuthCore
import Foundation
import JOSE

extension Authd.UserCommand {
    /// `authd user credentials NAME [--remove totp]`.
    struct Credentials: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show what an account signs in with beyond its password, or remove a second factor or a passkey.",
            discussion: """
                Lists the authenticator app (TOTP), how many recovery codes are left, and the passkeys \
                (id, name, dates), never a secret. --remove totp turns the app off with its recovery codes, \
                for an owner who lost both (their next login asks for the password only); --remove=ID \
                removes the passkey with that id (write it with =: an id may begin with -); --remove all \
                removes the app and every passkey.
                """
        )

        @Option(
            help: ArgumentHelp(
                "Remove the authenticator app (totp), the passkey with this id, or both the app and every passkey (all).",
                valueName: "totp|id|all"))
        var remove: String?

        @OptionGroup var account: AccountOptions

        func run() async throws {
            if remove == "totp" {
                let (user, removed) = try await account.withAccount { try await $0.removeTOTP(username: $1) }
                let name = TerminalText.escaped(user.username)
                print(removed ? "removed the authenticator app of \(name)" : "\(name) has no authenticator app")
                return
            }
            if remove == "all" {
                let (user, totp, passkeys) = try await account.withAccount { try await $0.removeTOTPAndPasskeys(username: $1) }
                print(Self.removal(totp: totp, passkeys: passkeys) + " of \(TerminalText.escaped(user.username))")
                return
            }
            if let id = remove {
                let (user, removed) = try await account.withAccount { try await $0.removePasskey(username: $1, id: id) }
                let name = TerminalText.escaped(user.username)
                guard removed else { throw CLIError("\(name) has no passkey \(TerminalText.escaped(id))") }
                print("removed passkey \(TerminalText.escaped(id)) of \(name)")
                return
            }
            let credentials = try await account.withAccount { try await $0.credentials(username: $1) }
            print(Self.table(credentials))
        }

        /// What `--remove all` removed: "removed the authenticator app and 2 passkeys".
        static func removal(totp: Bool, passkeys: Int) -> String {
            let removed = (totp ? ["the authenticator app"] : []) + [passkeys == 1 ? "1 passkey" : "\(passkeys) passkeys"]
            return "removed " + removed.joined(separator: " and ")
        }

        /// One line per credential: its kind and its state.
        static func table(_ credentials: AccountCredentials) -> String {
            let formatter = ISO8601DateFormatter()
            var lines = ["KIND      STATE", "password  " + (credentials.user.isDisabled ? "set (account disabled)" : "set")]
            switch credentials.totp {
            case .none:
                lines.append("totp      off")
            case .some(let factor):
                if let confirmedAt = factor.confirmedAt {
                    lines.append(
                        "totp      on since \(formatter.string(from: confirmedAt)), \(credentials.recoveryCodesLeft) recovery codes left")
                } else {
                    lines.append("totp      enrolment waiting for its first code since \(formatter.string(from: factor.createdAt))")
                }
            }
            for passkey in credentials.passkeys {
                let used = passkey.lastUsedAt.map { "last used \(formatter.string(from: $0))" } ?? "never used"
                lines.append(
                    "passkey   \(Base64URL.encode(passkey.id))  \"\(TerminalText.escaped(passkey.name))\"  registered \(formatter.string(from: passkey.createdAt)), \(used)"
                )
            }
            return lines.joined(separator: "\n")
        }
    }
}
