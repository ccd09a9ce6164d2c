import ArgumentParser

/// `authd`: a PostgreSQL-backed login service.
@main
struct Authd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authd",
        abstract: "A PostgreSQL-backed login service that issues signed access tokens.",
        subcommands: [
            Serve.self, Migrate.self, UserCommand.self, SessionsCommand.self, ClientCommand.self, ProviderCommand.self, Keys.self,
            Audit.self,
        ]
    )
}
