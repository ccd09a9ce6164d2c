import ArgumentParser
import ContractKit
import ContractRunner
import Foundation

/// How `verify` and `probe` reach the provider: started from `contract.yaml`, or already
/// running at `--base-url`.
struct ProviderOptions: ParsableArguments {
    @Option(name: .customLong("base-url"), help: "Use a provider already running here instead of starting one.")
    var baseURL: String?

    @Flag(
        name: .customLong("no-build"),
        help: "Build no swift_products: use those beside this contract executable (as swift build left them)."
    )
    var noBuild = false
}

/// The provider a command runs against, and the folder its run uses; ``close()`` stops
/// what was started and removes the folder.
struct RunningProvider {
    let environment: ProviderEnvironment
    /// Nil when nothing live was asked for (`verify --stub-only`).
    let process: ProviderProcess?

    /// Prepares the run's folder and products, then starts the provider (or reaches the one
    /// at `--base-url`); with `live: false`, builds and starts nothing. Problems are printed
    /// and end the command with status 3.
    static func start(_ suite: ContractSuite, directory: String, options: ProviderOptions, live: Bool = true) async throws -> RunningProvider {
        let environment: ProviderEnvironment
        do {
            let products: ProviderEnvironment.Products =
                !live ? .none
                : options.noBuild ? .prebuilt(folder: (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])).resolvingSymlinksInPath().deletingLastPathComponent().path)
                : .build
            environment = try await ProviderEnvironment.prepare(
                suite.provider, contractsDirectory: directory, products: products,
                log: { FileHandle.standardError.write(Data("\($0)\n".utf8)) }
            )
        } catch let error as ProviderEnvironment.PrepareError {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ContractCommand.Status.providerUnavailable
        }
        do {
            let process: ProviderProcess?
            if !live {
                process = nil
            } else if let baseURL = options.baseURL {
                process = .external(baseURL: baseURL, environment: environment)
            } else if let configuration = suite.provider {
                process = try await ProviderProcess.start(configuration, environment: environment)
            } else {
                throw ProviderProcess.StartError(description: "no contract.yaml in \(directory) and no --base-url")
            }
            return RunningProvider(environment: environment, process: process)
        } catch let error as ProviderProcess.StartError {
            environment.remove()
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ContractCommand.Status.providerUnavailable
        }
    }

    /// How states are set up on this provider.
    func states(_ suite: ContractSuite) -> ProviderStates? {
        process.map { ProviderStates(setups: suite.provider?.states ?? [:], variables: $0.variables) }
    }

    /// Stops the provider if it was started here and removes the run's folder.
    func close() {
        process?.stop()
        environment.remove()
    }
}
