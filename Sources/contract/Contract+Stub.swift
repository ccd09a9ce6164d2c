import ArgumentParser
import ContractStub
import ContractStubServer
import Foundation

extension ContractCommand {
    /// `contract stub DIR --port P`: serve the stub over HTTP until SIGINT or SIGTERM.
    struct Stub: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Serve a stub built from the contracts, for manual use and non-Swift clients.")

        @Argument(help: "The contracts directory.")
        var directory: String

        @Option(help: "Address to listen on.")
        var host = "127.0.0.1"

        @Option(help: "Port to listen on (0 picks a free one).")
        var port = 8080

        @Option(name: .customLong("state"), help: "A provider state to activate (repeatable); default: all.")
        var states: [String] = []

        func run() async throws {
            let suite = try load(directory)
            let stub: ContractStub
            do {
                stub = try ContractStub(contracts: suite.contracts, activeStates: states.isEmpty ? nil : Set(states))
            } catch {
                FileHandle.standardError.write(Data("the stub cannot be built from these contracts:\n\(error)\n".utf8))
                throw ContractCommand.Status.brokenContracts
            }
            let host = self.host
            try await ContractStubServer.run(stub, host: host, port: port, gracefulShutdownSignals: true) { port in
                FileHandle.standardOutput.write(Data("contract stub listening on http://\(host):\(port)\n".utf8))
            }
        }
    }
}
