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
    /// `contract probe DIR`: send bad-input variants of every request to the live provider
    /// and hold each answer to a timely 4xx of a declared shape.
    struct Probe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send bad inputs derived from the contracts to the provider; every answer must be a declared 4xx.",
            discussion: """
                For each interaction with a request body: each JSON field missing, null, of another type, \
                empty and too long; an unknown extra field; a body that is not JSON; Content-Type text/plain; \
                a body that is too large. Each answer must arrive within --deadline, be a 4xx, and have the \
                JSON shape of a 4xx response declared in the contracts.
                """
        )

        @Argument(help: "The contracts directory (with contract.yaml).")
        var directory: String

        @OptionGroup var providerOptions: ProviderOptions

        @Option(help: "Seconds an answer may take.")
        var deadline: Double = 5

        @Option(name: .customLong("long-string"), help: "Characters of a string that is too long.")
        var longString = ProbeVariant.Limits().longString

        @Option(name: .customLong("oversized-body"), help: "Bytes of a body that is too large.")
        var oversizedBody = ProbeVariant.Limits().oversizedBody

        @Option(help: "Only interactions whose contract or interaction name contains this text.")
        var filter: String?

        @Flag(help: "Print the report as JSON, for tools.")
        var json = false

        @Flag(name: .customLong("no-color"), help: "Plain output even on a terminal.")
        var noColor = false

        func validate() throws {
            guard deadline > 0 else { throw ValidationError("--deadline must be more than 0 seconds.") }
            guard longString > 0, oversizedBody > 0 else { throw ValidationError("--long-string and --oversized-body must be positive.") }
        }

        func run() async throws {
            let suite = try load(directory)
            let running = try await RunningProvider.start(suite, directory: directory, options: providerOptions)
            defer { running.close() }
            guard let provider = running.process else { throw ContractCommand.Status.providerUnavailable }
            let prober = ContractProber(
                live: HTTPTransport(baseURL: provider.baseURL, timeout: .milliseconds(Int64(deadline * 1000) + 1000)),
                contracts: suite.contracts, states: running.states(suite), deadline: .milliseconds(Int64(deadline * 1000)),
                limits: ProbeVariant.Limits(longString: longString, oversizedBody: oversizedBody),
                identityProvider: running.environment.deliveryReceiver?.identityProvider
            )
            let report = await prober.probe(filter: filter)
            if json {
                print(ProbeJSONReport.render(report))
            } else {
                let color = !noColor && isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
                print(ProbeTextReport.render(report, color: color))
            }
            guard !report.interactions.isEmpty else {
                FileHandle.standardError.write(Data("error: no interaction matched\(filter.map { " --filter \($0)" } ?? "")\n".utf8))
                throw ContractCommand.Status.failures
            }
            if !report.succeeded { throw ContractCommand.Status.failures }
        }
    }
}
