import ArgumentParser
import AuthCore
import Foundation

extension Authd {
    /// `authd client …`: the relying parties that introspect and revoke tokens.
    struct ClientCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "client",
            abstract: "Register the relying parties: resource servers that introspect and revoke tokens, and apps that sign users in.",
            subcommands: [Add.self, List.self, Remove.self]
        )
    }
}

extension Authd.ClientCommand {
    /// `authd client add NAME [--audience URI]… [--redirect-uri URI]… [--public]`.
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register a relying party; prints its client id and secret (shown once, stored only hashed).",
            discussion: """
                The client authenticates with HTTP Basic (or client_id and client_secret in the form) at \
                POST /oauth/introspect, POST /oauth/revoke and, for tokens of its own, POST /oauth/token \
                with grant_type=client_credentials. With --redirect-uri it is also an OpenID Connect client \
                that signs users in through /authorize: confidential by default, or --public for a native \
                or browser app, which holds no secret and must send a PKCE challenge. Redirect URIs match \
                exactly, except that a loopback one (http://127.0.0.1/path, http://[::1]/path) takes any \
                port (RFC 8252 §7.3); private-use schemes (com.example.app:/callback) are for native apps.
                """
        )

        @Argument(help: "The client id: 1 to 64 letters, digits, '.', '_' or '-'.")
        var name: String

        @Option(
            name: .customLong("audience"),
            help: ArgumentHelp(
                "The aud of the tokens it gets with client_credentials; repeatable (default: its client id).", valueName: "uri")
        )
        var audiences: [String] = []

        @Flag(
            name: .customLong("secret-stdin"),
            help: "Read the secret from standard input (32 to 512 characters) instead of making a random one, e.g. from a secret store."
        )
        var secretFromStandardInput = false

        @Flag(name: .customLong("replace"), help: "Replace a client of this name (its old secret stops working).")
        var replace = false

        @Flag(
            name: .customLong("trusted-introspector"),
            help: "Let it introspect and revoke every token (a gateway), not only those whose aud names one of its audiences and its own."
        )
        var trustedIntrospector = false

        @Option(
            name: .customLong("redirect-uri"),
            help: ArgumentHelp("Where /authorize may send the browser back with a code; repeatable.", valueName: "uri"))
        var redirectURIs: [String] = []

        @Option(
            name: .customLong("post-logout-redirect-uri"),
            help: ArgumentHelp("Where /logout may send the browser after signing out; repeatable.", valueName: "uri"))
        var postLogoutRedirectURIs: [String] = []

        @Flag(name: .customLong("public"), help: "A native or browser app: no secret, and PKCE required (needs --redirect-uri).")
        var isPublic = false

        @Flag(name: .customLong("first-party"), help: "An app of your own: users are not asked to consent (needs --redirect-uri).")
        var firstParty = false

        @Option(
            name: .customLong("scope"),
            help: ArgumentHelp(
                "A scope it may ask for: openid, profile, email, offline_access; repeatable (default: all of them).", valueName: "scope"))
        var scopes: [String] = []

        @Option(
            name: .customLong("id-token-alg"),
            help: ArgumentHelp("What its ID tokens are signed with: RS256 (the default), ES256 or EdDSA.", valueName: "alg"))
        var idTokenAlgorithm: SigningAlgorithm?

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let chosen = secretFromStandardInput ? try Authd.UserCommand.Add.readPassword() : nil
            let signsIn =
                !redirectURIs.isEmpty || !postLogoutRedirectURIs.isEmpty || isPublic || firstParty || !scopes.isEmpty
                || idTokenAlgorithm != nil
            let signIn: OIDCClientSettings =
                signsIn
                ? try OIDCClientSettings(
                    redirectURIs: redirectURIs, postLogoutRedirectURIs: postLogoutRedirectURIs, isPublic: isPublic, firstParty: firstParty,
                    scopes: scopes.isEmpty ? OIDCClientSettings.supportedScopes : scopes, idTokenAlgorithm: idTokenAlgorithm ?? .rs256)
                : .none
            let (name, audiences, trusted, replace) = (self.name, self.audiences, trustedIntrospector, self.replace)
            let (client, secret) = try await database.withClients(logger: logging.makeLogger()) { registry in
                try await registry.register(
                    id: name, audiences: audiences, secret: chosen, trustedIntrospector: trusted, signIn: signIn, replacing: replace)
            }
            print("client_id: \(client.id)")
            // A secret the operator chose is not echoed.
            if client.signIn.isPublic {
                print("public client: no secret; each authorization request must carry a PKCE challenge (S256)")
            } else if chosen == nil {
                print("client_secret: \(secret)")
            }
        }
    }

    /// `authd client list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the relying parties, by client id.")

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let clients = try await database.withClients(logger: logging.makeLogger()) { try await $0.all() }
            let formatter = ISO8601DateFormatter()
            print("CLIENT ID                         CREATED               AUDIENCES")
            for client in clients {
                print(
                    "\(client.id.padding(toLength: 32, withPad: " ", startingAt: 0))  \(formatter.string(from: client.createdAt))  "
                        + client.tokenAudiences.joined(separator: " ") + (client.trustedIntrospector ? "  (trusted introspector)" : "")
                )
                let signIn = client.signIn
                if signIn.signsUsersIn {
                    let kind = [signIn.isPublic ? "public" : "confidential", signIn.firstParty ? "first-party" : nil].compactMap { $0 }
                    print(
                        "    signs users in (\(kind.joined(separator: ", ")); scopes \(signIn.scopes.joined(separator: " ")); "
                            + "ID tokens \(signIn.idTokenAlgorithm.rawValue)) at "
                            + signIn.redirectURIs.map(\.text).joined(separator: " "))
                }
            }
        }
    }

    /// `authd client remove NAME`.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a relying party: its secret stops working and its client_credentials tokens stop introspecting as active."
        )

        @Argument(help: "The client id.")
        var name: String

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let name = self.name
            try await database.withClients(logger: logging.makeLogger()) { try await $0.remove(id: name) }
            print("removed client \(name)")
        }
    }
}

extension SigningAlgorithm: ExpressibleByArgument {}
