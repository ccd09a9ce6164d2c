import ArgumentParser
import ContractInterop
import ContractKit
import ContractRunner
import ContractStubServer
import Foundation

extension ContractCommand {
    /// `contract pact-states DIR`: the provider and a state-change URL, for the Pact
    /// verifier replaying a file that `contract export pact` wrote.
    struct PactStates: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pact-states",
            abstract: "Start the provider as verify does and serve the state-change URL the Pact verifier needs, until interrupted.",
            discussion: """
                Provider states are set up as DIR/contract.yaml says. The state \
                '\(PactExporter.savedValuesState)' replays the interactions before the one it names in \
                its contract and answers with the values its request uses. Prints the provider's URL, \
                the state-change URL and the `pact verifier` command line (with a request timeout of \(verifierTimeout / 1000) s: \
                a state late in a long contract replays every interaction before it).
                """
        )

        @Argument(help: "The contracts directory (with contract.yaml) the Pact file was exported from.")
        var directory: String

        @OptionGroup var providerOptions: ProviderOptions

        @Option(help: "Address the state-change URL listens on.")
        var host = "127.0.0.1"

        @Option(help: "Port of the state-change URL (0 picks a free one).")
        var port = 0

        /// The verifier's bound on each request, milliseconds, against its default 5 s: a
        /// state late in a long contract replays every interaction before it (sign-ups, logins,
        /// the states' commands), which a loaded machine can stretch far past that. A bound
        /// for a hang, not a speed.
        static let verifierTimeout = 300_000

        func run() async throws {
            let suite = try load(directory)
            let running = try await RunningProvider.start(suite, directory: directory, options: providerOptions)
            defer { running.close() }
            guard let provider = running.process else { throw ContractCommand.Status.providerUnavailable }
            let verifier = ContractVerifier(
                live: HTTPTransport(baseURL: provider.baseURL), states: running.states(suite),
                deliveries: running.environment.deliveryReceiver?.inbox,
                identityProvider: running.environment.deliveryReceiver?.identityProvider
            )
            let handler = PactStateChange(contracts: suite.contracts, verifier: verifier)
            let host = self.host
            let target = URLComponents(string: provider.baseURL)
            try await ContractStubServer.serve(host: host, port: port, gracefulShutdownSignals: true) { port in
                let stateURL = "http://\(host):\(port)/"
                let lines = [
                    "provider: \(provider.baseURL)",
                    "state change URL: \(stateURL)",
                    "pact verifier --file PACT.json --hostname \(target?.host ?? "127.0.0.1") --port \(target?.port ?? 80) --state-change-url \(stateURL)"
                        + " --request-timeout \(Self.verifierTimeout)",
                ]
                FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
            } respond: { request in
                await handler.respond(to: request)
            }
        }
    }
}
