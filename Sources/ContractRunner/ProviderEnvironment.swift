import ContractKit
import Foundation
import ProcessKit

/// The variables every `contract.yaml` text may use, prepared once per run:
/// `{{env.NAME}}` (the environment), `{{scratch}}` (a fresh folder, removed by
/// ``remove()``), `{{bin.NAME}}` (each SwiftPM product of `swift_products`, built first) and
/// `{{delivery_url}}` (the ``DeliveryReceiver`` started here, before the provider, for the
/// contracts' `delivers:`). The provider adds `{{port}}`.
///
/// ```swift
/// let environment = try await ProviderEnvironment.prepare(suite.provider, contractsDirectory: "contracts")
/// defer { environment.remove() }
/// let provider = try await ProviderProcess.start(configuration, environment: environment)
/// ```
public struct ProviderEnvironment: Sendable {
    /// Preparing failed: the scratch folder, or building a product.
    public struct PrepareError: Error, CustomStringConvertible {
        /// What failed, with the end of the build's output.
        public let description: String
    }

    /// `env.*`, `scratch`, `delivery_url` and `bin.*`.
    public let variables: [String: JSONValue]
    /// The scratch folder.
    public let scratch: URL
    /// The receiver of deliveries, at `{{delivery_url}}`; closed by ``remove()``.
    public let deliveryReceiver: DeliveryReceiver?

    init(variables: [String: JSONValue], scratch: URL, deliveryReceiver: DeliveryReceiver? = nil) {
        self.variables = variables
        self.scratch = scratch
        self.deliveryReceiver = deliveryReceiver
    }

    /// Where `{{bin.NAME}}` comes from.
    public enum Products: Sendable, Equatable {
        /// Build each with `swift build --product NAME` in the package, then use its bin folder.
        case build
        /// Use the ones already built in this folder (for example `.build/debug`); nothing is built.
        case prebuilt(folder: String)
        /// None: nothing will start the provider or set up states (`--stub-only`).
        case none
    }

    /// Makes the scratch folder, starts the delivery receiver (on `deliveryPort`, 0 for a free
    /// one) and provides the products `configuration` lists, telling `log` about each build
    /// (a failed build's output is in the error).
    public static func prepare(
        _ configuration: ProviderConfiguration?,
        contractsDirectory: String,
        products: Products = .build,
        deliveryPort: Int = 0,
        log: @Sendable (String) -> Void = { _ in }
    ) async throws -> ProviderEnvironment {
        var variables = Template.environmentVariables()
        let scratch: URL
        do {
            // World-traversable: a provider may hand the folder to a service account (PostgreSQL as root).
            scratch = try TemporaryFolder("contract", permissions: 0o755).url
        } catch {
            throw PrepareError(
                description:
                    "cannot create a scratch folder in \(FileManager.default.temporaryDirectory.path): \(error.localizedDescription)")
        }
        variables["scratch"] = .string(scratch.path)
        let receiver: DeliveryReceiver
        do {
            receiver = try await DeliveryReceiver.start(port: deliveryPort)
        } catch {
            try? FileManager.default.removeItem(at: scratch)
            throw PrepareError(description: "cannot start the delivery receiver on 127.0.0.1:\(deliveryPort): \(error)")
        }
        variables["delivery_url"] = .string(receiver.url)
        let environment = ProviderEnvironment(variables: variables, scratch: scratch, deliveryReceiver: receiver)
        guard let configuration, !configuration.swiftProducts.isEmpty else { return environment }
        do {
            let binaries: [String: String]
            switch products {
            case .none:
                return environment
            case .prebuilt(let folder):
                binaries = try SwiftProducts.prebuilt(configuration.swiftProducts, in: folder)
            case .build:
                let package = try packageDirectory(for: configuration, contractsDirectory: contractsDirectory)
                binaries = try await SwiftProducts.build(configuration.swiftProducts, package: package, log: log)
            }
            var withBinaries = variables
            for (name, path) in binaries { withBinaries["bin.\(name)"] = .string(path) }
            return ProviderEnvironment(variables: withBinaries, scratch: scratch, deliveryReceiver: receiver)
        } catch {
            environment.remove()
            throw error
        }
    }

    /// These variables and `port`.
    public func variables(port: Int) -> [String: JSONValue] {
        variables.merging(["port": .string(String(port))]) { _, new in new }
    }

    /// Removes the scratch folder and what the run left in it, and stops the delivery receiver.
    public func remove() {
        deliveryReceiver?.close()
        try? FileManager.default.removeItem(at: scratch)
    }

    /// `swift_package` relative to the contracts, or the nearest folder at or above them
    /// with a `Package.swift`.
    static func packageDirectory(for configuration: ProviderConfiguration, contractsDirectory: String) throws -> String {
        let contracts = URL(fileURLWithPath: contractsDirectory).standardizedFileURL
        if let relative = configuration.swiftPackage {
            return contracts.appendingPathComponent(relative).standardizedFileURL.path
        }
        var folder = contracts
        while true {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) { return folder.path }
            guard folder.path != "/" else { break }
            folder.deleteLastPathComponent()
        }
        throw PrepareError(
            description:
                "swift_products needs a Swift package: no Package.swift in \(contracts.path) or above it (set provider.swift_package)")
    }
}

/// Builds SwiftPM products with the `swift` on `PATH`, or finds them built.
enum SwiftProducts {
    /// Each product's path in `folder`; throws when one is not there.
    static func prebuilt(_ products: [String], in folder: String) throws -> [String: String] {
        var paths: [String: String] = [:]
        for product in products {
            let path = URL(fileURLWithPath: folder).appendingPathComponent(product).path
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw ProviderEnvironment.PrepareError(
                    description: "--no-build: \(product) is not built in \(folder) (run swift build --product \(product))")
            }
            paths[product] = path
        }
        return paths
    }

    /// Builds `products` in `package` (debug) and returns each one's path.
    static func build(_ products: [String], package: String, log: @Sendable (String) -> Void) async throws -> [String: String] {
        guard let swift = CommandRunner.which("swift") else {
            throw ProviderEnvironment.PrepareError(description: "swift_products needs the swift toolchain on PATH")
        }
        for product in products {
            log("building \(product) (swift build --product \(product))")
            let child = try ChildProcess(
                executable: swift, arguments: ["build", "--product", product, "--package-path", package], mergeErrors: true)
            let status = await child.waitForExit()
            guard status == 0 else {
                throw ProviderEnvironment.PrepareError(
                    description: "building \(product) failed (exit \(status)):\n\(String(child.standardOutput.suffix(3000)))"
                )
            }
        }
        let show = try ChildProcess(executable: swift, arguments: ["build", "--show-bin-path", "--package-path", package])
        let status = await show.waitForExit()
        let folder = show.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        guard status == 0, !folder.isEmpty else {
            throw ProviderEnvironment.PrepareError(
                description: "swift build --show-bin-path failed (exit \(status)): \(show.standardError.suffix(500))")
        }
        return Dictionary(uniqueKeysWithValues: products.map { ($0, folder + "/" + $0) })
    }
}
