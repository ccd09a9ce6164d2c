import ArgumentParser
import AuthCore
import AuthServer
import Foundation

extension Authd {
    /// `authd provider …`: the upstream identity providers users may sign in with.
    struct ProviderCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "provider",
            abstract: "Add the identity providers users may sign in with: Apple, Google, or any OpenID provider.",
            subcommands: [Add.self, List.self, Remove.self]
        )
    }
}

extension Authd.ProviderCommand {
    /// `authd provider add NAME --client-id ID [--issuer URL] [--kind oidc|apple|google] …`.
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an identity provider, found through its discovery document; its secrets are sealed under the KEK.",
            discussion: """
                Apps sign in with the provider's ID tokens at POST /login/id-token {"provider": NAME, "id_token", "nonce"}: \
                the token must name one of the --client-id values as its audience (give the web client id first, then \
                the ids of native apps: an iOS app's bundle id for Apple, its iOS client id for Google). The issuer is \
                https, or http on a loopback address. --kind apple needs --team-id, --key-id and \
                --private-key-file (the AuthKey_KEYID.p8 Apple gives); authd signs Apple's client secret with it. \
                A first sign-in makes an account only with serve --signup open or --create-accounts; a verified email \
                that is already an account's is never linked without that account's owner.
                """
        )

        @Argument(help: "The provider's name in authd: 1 to 64 letters, digits, '.', '_' or '-'.")
        var name: String

        @Option(help: "oidc (any OpenID provider), apple or google.")
        var kind: IdentityProvider.Kind = .oidc

        @Option(help: ArgumentHelp("Its issuer (default for apple and google: theirs).", valueName: "url"))
        var issuer: String?

        @Option(
            name: .customLong("client-id"),
            help: ArgumentHelp("A client id its ID tokens may name as audience; repeatable, the browser's first.", valueName: "id"))
        var clientIDs: [String] = []

        @Flag(name: .customLong("client-secret-stdin"), help: "Read the client secret from standard input.")
        var clientSecretFromStandardInput = false

        @Option(name: .customLong("scope"), help: ArgumentHelp("A scope to ask for in the browser; repeatable.", valueName: "scope"))
        var scopes: [String] = []

        @Flag(name: .customLong("create-accounts"), help: "Make an account at the first sign-in of an identity even with sign-up closed.")
        var createAccounts = false

        @Option(name: .customLong("team-id"), help: "Apple: the Apple Developer team id.")
        var teamID: String?

        @Option(name: .customLong("key-id"), help: "Apple: the id of the Sign in with Apple key.")
        var keyID: String?

        @Option(name: .customLong("private-key-file"), help: ArgumentHelp("Apple: the key's .p8 file.", valueName: "path"))
        var privateKeyFile: String?

        @Flag(name: .customLong("replace"), help: "Replace a provider of this name (its identities stay linked).")
        var replace = false

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var keyEncryption: KeyEncryptionKeyOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let secret = clientSecretFromStandardInput ? try Authd.UserCommand.Add.readPassword() : nil
            var pem: String?
            if let privateKeyFile {
                do {
                    pem = try String(contentsOfFile: privateKeyFile, encoding: .utf8)
                } catch {
                    throw CLIError("the private key file \(privateKeyFile) could not be read")
                }
            }
            let registration = ProviderRegistration(
                name: name, kind: kind, issuer: issuer, clientIDs: clientIDs, clientSecret: secret, scopes: scopes,
                createsAccounts: createAccounts,
                appleTeamID: teamID, appleKeyID: keyID, applePrivateKeyPEM: pem, replacing: replace)
            let provider = try await database.withProviders(keyEncryption, logger: logging.makeLogger()) { try await $0.add(registration) }
            print("added provider \(provider.name) (\(provider.kind.rawValue)): issuer \(provider.issuer)")
            print("  audiences: \(provider.clientIDs.joined(separator: " "))")
            print("  keys: \(provider.metadata.jwksURI)")
        }
    }

    /// `authd provider list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the identity providers, by name.")

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var keyEncryption: KeyEncryptionKeyOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let providers = try await database.withProviders(keyEncryption, logger: logging.makeLogger()) { try await $0.all() }
            print("NAME              KIND    ISSUER")
            for provider in providers {
                print(
                    "\(provider.name.padding(toLength: 16, withPad: " ", startingAt: 0))  \(provider.kind.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0))  \(provider.issuer)"
                        + (provider.createsAccounts ? "  (creates accounts)" : ""))
                print("    audiences \(provider.clientIDs.joined(separator: " ")); scopes \(provider.scopes.joined(separator: " "))")
            }
        }
    }

    /// `authd provider remove NAME`.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove an identity provider and unlink its identities (their accounts keep their other ways in).")

        @Argument(help: "The provider's name.")
        var name: String

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var keyEncryption: KeyEncryptionKeyOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let name = self.name
            let unlinked = try await database.withProviders(keyEncryption, logger: logging.makeLogger()) { try await $0.remove(name: name) }
            print("removed provider \(name); unlinked \(unlinked) identit\(unlinked == 1 ? "y" : "ies")")
        }
    }
}

extension IdentityProvider.Kind: ExpressibleByArgument {}
