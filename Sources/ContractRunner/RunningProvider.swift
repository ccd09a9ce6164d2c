import ContractKit
import Foundation

/// The provider a run replays contracts against, and the folder the run uses: started as
/// `contract.yaml` says, reached at a base URL already running, or none at all (a stub-only
/// run). ``close()`` stops what was started and removes the folder.
///
/// `contract verify`, `probe` and `pact-states` start theirs with it; so can a test or a
/// benchmark:
///
/// ```swift
/// let suite = try ContractLoader.load(directory: "contracts")
/// let running = try await RunningProvider.start(suite, directory: "contracts", products: .build)
/// defer { running.close() }
/// let transport = HTTPTransport(baseURL: running.process?.baseURL ?? "")
/// ```
public struct RunningProvider: Sendable {
    /// The provider could not be prepared or started: its products did not build, it exited,
    /// or it never became ready. The description says which, with the end of its output.
    public struct StartError: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String
    }

    /// The run's folder and variables.
    public let environment: ProviderEnvironment
    /// The provider; nil when nothing live was asked for.
    public let process: ProviderProcess?

    /// Prepares the run's folder and `products`, then starts the provider from `suite`'s
    /// `contract.yaml`, or reaches the one at `baseURL` when given; with `live: false`
    /// builds and starts nothing. `log` hears the build's progress.
    public static func start(
        _ suite: ContractSuite, directory: String, products: ProviderEnvironment.Products = .build,
        baseURL: String? = nil, deliveryPort: Int = 0, live: Bool = true, log: @Sendable (String) -> Void = { _ in }
    ) async throws(StartError) -> RunningProvider {
        let environment: ProviderEnvironment
        do {
            environment = try await ProviderEnvironment.prepare(
                suite.provider, contractsDirectory: directory, products: live ? products : .none, deliveryPort: deliveryPort, log: log
            )
        } catch {
            throw StartError(description: "\(error)")
        }
        do {
            let process: ProviderProcess?
            if !live {
                process = nil
            } else if let baseURL {
                process = .external(baseURL: baseURL, environment: environment)
            } else if let configuration = suite.provider {
                process = try await ProviderProcess.start(configuration, environment: environment)
            } else {
                throw ProviderProcess.StartError(description: "no contract.yaml in \(directory) and no --base-url")
            }
            return RunningProvider(environment: environment, process: process)
        } catch {
            environment.remove()
            throw StartError(description: "\(error)")
        }
    }

    /// How provider states are set up, and the clock moved, on this provider; nil when none runs.
    public func states(_ suite: ContractSuite) -> ProviderStates? {
        process.map {
            ProviderStates(
                setups: suite.provider?.states ?? [:], variables: $0.variables, clock: suite.provider?.clock, baseURL: $0.baseURL)
        }
    }

    /// Stops the provider if it was started here and removes the run's folder.
    public func close() {
        process?.stop()
        environment.remove()
    }
}
