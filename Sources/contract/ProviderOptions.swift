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

    @Option(
        name: .customLong("delivery-port"),
        help:
            "Port of the receiver of the contracts' deliveries on 127.0.0.1 ({{delivery_url}}); 0 picks a free one. Fix it to point a provider of --base-url at it."
    )
    var deliveryPort = 0

    func validate() throws {
        guard (0...65535).contains(deliveryPort) else { throw ValidationError("--delivery-port must be between 0 and 65535.") }
    }
}

extension RunningProvider {
    /// Starts the provider as `options` say (built products, those beside this executable, or
    /// the one at `--base-url`); problems are printed and end the command with status 3.
    static func start(_ suite: ContractSuite, directory: String, options: ProviderOptions, live: Bool = true) async throws
        -> RunningProvider
    {
        let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        let products: ProviderEnvironment.Products =
            options.noBuild ? .prebuilt(folder: executable.resolvingSymlinksInPath().deletingLastPathComponent().path) : .build
        do {
            return try await start(
                suite, directory: directory, products: products, baseURL: options.baseURL, deliveryPort: options.deliveryPort, live: live,
                log: { FileHandle.standardError.write(Data("\($0)\n".utf8)) }
            )
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ContractCommand.Status.providerUnavailable
        }
    }
}
