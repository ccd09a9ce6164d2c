import ArgumentParser
import ContractKit
import ContractRunner
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ContractCommand {
    /// `contract verify DIR`: start the provider (unless `--base-url`), set up states,
    /// replay every interaction and report.
    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Replay the contracts against the provider.")

        @Argument(help: "The contracts directory (with contract.yaml).")
        var directory: String

        @Option(name: .customLong("base-url"), help: "Verify a provider already running here instead of starting one.")
        var baseURL: String?

        @Option(help: "Write a JUnit XML report to this file.")
        var junit: String?

        @Option(help: "Write a JSON report to this file.")
        var json: String?

        @Option(help: "Only interactions whose contract or interaction name contains this text.")
        var filter: String?

        @Flag(name: .customLong("no-color"), help: "Plain output even on a terminal.")
        var noColor = false

        func run() async throws {
            let suite = try load(directory)
            let provider: ProviderProcess
            do {
                if let baseURL {
                    provider = .external(baseURL: baseURL)
                } else if let configuration = suite.provider {
                    provider = try await ProviderProcess.start(configuration)
                } else {
                    throw ProviderProcess.StartError(description: "no contract.yaml in \(directory) and no --base-url")
                }
            } catch let error as ProviderProcess.StartError {
                FileHandle.standardError.write(Data("error: \(error)\n".utf8))
                throw ContractCommand.Status.providerUnavailable
            }
            defer { provider.stop() }

            let states = ProviderStates(setups: suite.provider?.states ?? [:], variables: provider.variables)
            let verifier = ContractVerifier(transport: HTTPTransport(baseURL: provider.baseURL), states: states)
            let report = await verifier.verify(suite.contracts, filter: filter)

            let color = !noColor && isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
            print(TextReport.render(report, color: color))
            if let junit { try JUnitReport.render(report).write(toFile: junit, atomically: true, encoding: .utf8) }
            if let json { try JSONReport.render(report).write(toFile: json, atomically: true, encoding: .utf8) }

            guard !report.results.isEmpty else {
                FileHandle.standardError.write(Data("error: no interaction matched --filter \(filter ?? "")\n".utf8))
                throw ContractCommand.Status.failures
            }
            // Nothing got an answer and at least one request found no provider.
            let unreachable = report.results.allSatisfy { $0.response == nil } && report.results.contains {
                if case .error(let message) = $0.outcome { message.hasPrefix("the provider did not answer") } else { false }
            }
            if unreachable { throw ContractCommand.Status.providerUnavailable }
            if !report.succeeded { throw ContractCommand.Status.failures }
        }
    }
}
