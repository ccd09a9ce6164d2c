import ArgumentParser
import ContractKit
import ContractRunner
import ContractStub
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ContractCommand {
    /// `contract verify DIR`: build and start the provider (unless `--base-url`), set up
    /// states, replay every interaction against it and the stub, compare, and report.
    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Replay the contracts against the provider.")

        @Argument(help: "The contracts directory (with contract.yaml).")
        var directory: String

        @OptionGroup var providerOptions: ProviderOptions

        @Option(help: "Write a JUnit XML report to this file.")
        var junit: String?

        @Option(help: "Write a JSON report to this file.")
        var json: String?

        @Option(help: "Only interactions whose contract or interaction name contains this text.")
        var filter: String?

        @Option(name: .customLong("filter-state"), help: "Only interactions that use this provider state.")
        var filterState: String?

        @Option(help: "How many contract files run at once (the interactions of one file always run in order).")
        var jobs = 4

        @Option(help: "How far live and stub must agree: full (the whole JSON shape) or declared (what the contract declares).")
        var agreement: AgreementMode = .full

        @Flag(name: .customLong("stub-only"), help: "Check the stub against the contracts; start no provider.")
        var stubOnly = false

        @Flag(name: .customLong("live-only"), help: "Check the live provider against the contracts; no stub, no agreement check.")
        var liveOnly = false

        @Flag(
            name: .customLong("allow-unseen-variants"),
            help:
                "Report a one_of alternative or an optional key's side the provider never answered with, without failing (a filtered run only reports them)."
        )
        var allowUnseenVariants = false

        @Flag(name: .customLong("no-color"), help: "Plain output even on a terminal.")
        var noColor = false

        func validate() throws {
            guard !(stubOnly && liveOnly) else { throw ValidationError("--stub-only and --live-only exclude each other.") }
            guard !(stubOnly && providerOptions.baseURL != nil) else {
                throw ValidationError("--stub-only starts no provider: leave out --base-url.")
            }
            guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1.") }
        }

        func run() async throws {
            let suite = try load(directory)
            var stub: ContractStub?
            if !liveOnly {
                do {
                    stub = try ContractStub(contracts: suite.contracts)
                } catch {
                    FileHandle.standardError.write(Data("the stub cannot be built from these contracts:\n\(error)\n".utf8))
                    throw ContractCommand.Status.brokenContracts
                }
            }
            let running = try await RunningProvider.start(suite, directory: directory, options: providerOptions, live: !stubOnly)
            defer { running.close() }
            let provider = running.process
            let states = running.states(suite)
            let receiver = running.environment.deliveryReceiver
            if let receiver, provider != nil, providerOptions.baseURL != nil,
                suite.contracts.contains(where: { $0.interactions.contains { !$0.delivers.isEmpty } })
            {
                // contract.yaml did not start this provider, so it cannot have passed it {{delivery_url}}.
                FileHandle.standardError.write(
                    Data(
                        "deliveries: the contracts expect deliveries; configure the provider at \(providerOptions.baseURL ?? "") to deliver to \(receiver.url)\n"
                            .utf8)
                )
            }
            let verifier = ContractVerifier(
                live: provider.map { HTTPTransport(baseURL: $0.baseURL) }, stub: stub, states: states, agreement: agreement,
                concurrency: jobs, deliveries: receiver?.inbox, identityProvider: receiver?.identityProvider
            )
            let verified = await verifier.verify(suite.contracts, filter: filter, state: filterState)
            // A filtered run sees part of the responses: what it did not see is reported only.
            let partial = filter != nil || filterState != nil
            let report = allowUnseenVariants || partial ? verified.allowingUnseenVariants() : verified

            let color = !noColor && isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
            print(TextReport.render(report, color: color))
            if let junit { try JUnitReport.render(report).write(toFile: junit, atomically: true, encoding: .utf8) }
            if let json { try JSONReport.render(report).write(toFile: json, atomically: true, encoding: .utf8) }

            guard !report.results.isEmpty else {
                let asked = [filter.map { "--filter \($0)" }, filterState.map { "--filter-state \($0)" }].compactMap { $0 }
                FileHandle.standardError.write(Data("error: no interaction matched \(asked.joined(separator: " and "))\n".utf8))
                throw ContractCommand.Status.failures
            }
            // Nothing got an answer and at least one request found no provider.
            let unreachable =
                report.results.allSatisfy { $0.response == nil }
                && report.results.contains {
                    if case .error(let error) = $0.live { error.code == .noAnswer } else { false }
                }
            if unreachable { throw ContractCommand.Status.providerUnavailable }
            if !report.succeeded { throw ContractCommand.Status.failures }
        }
    }
}

extension AgreementMode: ExpressibleByArgument {}
