import ArgumentParser

/// `contract`: verify YAML contracts against a live provider.
@main
struct ContractCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contract",
        abstract: "Replay YAML contracts against a live HTTP provider and report what holds.",
        discussion: """
            Exit status: 0 when every interaction holds, 1 when some do not, \
            2 when the contracts themselves are broken, 3 when the provider could not be started or reached.
            """,
        subcommands: [
            Verify.self, Probe.self, Record.self, Lint.self, Stub.self, Import.self, Export.self, PactStates.self, Diff.self,
            CanIDeploy.self,
        ]
    )

    /// The documented exit statuses.
    enum Status {
        static let failures = ExitCode(1)
        static let brokenContracts = ExitCode(2)
        static let providerUnavailable = ExitCode(3)
    }
}
