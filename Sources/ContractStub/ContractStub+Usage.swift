import ContractKit
import Foundation
import Synchronization

extension ContractStub {
    /// The interactions this stub answered so far (those a fault replaced do not count), for
    /// `client`: what a client's tests rely on, for `contract can-i-deploy --usage`. It
    /// outlives ``reset()``.
    ///
    /// ```swift
    /// _ = try await api.login(username: "alice", password: "correct horse battery staple")
    /// stub.usage(client: "LoginClient").interactions.map(\.interaction)   // ["valid credentials return a bearer token pair"]
    /// ```
    public func usage(client: String) -> ContractUsage {
        ContractUsage(client: client, interactions: hooks.state.withLock { $0.used })
    }

    /// ``usage(client:)`` under ``usageClient`` (or `client` when that is nil).
    public var usage: ContractUsage { usage(client: usageClient ?? "client") }

    /// The interactions this stub could answer (its active states') that it has not answered,
    /// sorted: for teams that want every contract covered by a client test.
    ///
    /// ```swift
    /// stub.unexercised.map(\.description)   // ["login.yaml: a disabled account is reported … (POST /login)", …]
    /// ```
    public var unexercised: [ContractUsage.Interaction] {
        hooks.state.withLock { state in Set(state.interactions).subtracting(state.used).sorted() }
    }

    /// Throws ``Unexercised`` listing the interactions no request reached, if any.
    ///
    /// ```swift
    /// @Test func everyInteractionIsCovered() async throws {
    ///     // … the client's calls against stub.urlSession …
    ///     try stub.assertAllExercised()
    /// }
    /// ```
    public func assertAllExercised() throws {
        let missing = unexercised
        if !missing.isEmpty { throw Unexercised(interactions: missing) }
    }

    /// Interactions of the contracts no request reached (``assertAllExercised()``).
    public struct Unexercised: Error, CustomStringConvertible {
        /// The interactions, sorted.
        public let interactions: [ContractUsage.Interaction]

        /// `N interactions were not exercised:` and one a line.
        public var description: String {
            "\(interactions.count) interaction\(interactions.count == 1 ? " was" : "s were") not exercised:\n"
                + interactions.map { "  \($0)" }.joined(separator: "\n")
        }
    }

    /// The client name under which this stub's usage goes to `CONTRACT_USAGE_DIR`: by default
    /// `CONTRACT_USAGE_CLIENT`, else the test bundle's name without `PackageTests`
    /// (`LoginClientPackageTests` → `LoginClient`). Set it to nil for a stub of test fixtures
    /// rather than the provider's contracts, whose usage should not be written.
    public var usageClient: String? {
        get { hooks.state.withLock { $0.usageClient } }
        set { hooks.state.withLock { $0.usageClient = newValue } }
    }

    /// Adds this stub's usage to `directory/client.json`. Within one process the file holds
    /// what every stub written there for `client` used; the process's first write replaces
    /// what the file held before (so an interaction the tests stopped using leaves it). Call
    /// it at the end of a test, or set `CONTRACT_USAGE_DIR` and every stub writes as it answers.
    ///
    /// ```swift
    /// try stub.writeUsage(to: URL(fileURLWithPath: "contract-usage"), client: "LoginClient")
    /// ```
    /// - Returns: the file written.
    @discardableResult
    public func writeUsage(to directory: URL, client: String) throws -> URL {
        try UsageRegistry.add(usage(client: client).interactions, client: client, directory: directory.path, throwing: true)
    }
}

/// The usage files this process writes: per folder and client, what every stub of this
/// process used, rewritten whole on each change.
enum UsageRegistry {
    private static let files = Mutex([String: Set<ContractUsage.Interaction>]())

    /// `CONTRACT_USAGE_DIR`, when set and not empty.
    static var environmentDirectory: String? {
        ProcessInfo.processInfo.environment["CONTRACT_USAGE_DIR"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `CONTRACT_USAGE_CLIENT`, else the process's name without a test bundle's suffixes.
    static var environmentClient: String? {
        if let client = ProcessInfo.processInfo.environment["CONTRACT_USAGE_CLIENT"], !client.isEmpty { return client }
        var name = ProcessInfo.processInfo.processName
        for suffix in [".xctest", "PackageTests"] where name.hasSuffix(suffix) { name.removeLast(suffix.count) }
        return name.isEmpty ? nil : name
    }

    /// Adds `interactions` to the usage of `client` in `directory` and rewrites its file; a
    /// failure is thrown when `throwing`, else written to standard error.
    @discardableResult
    static func add(_ interactions: [ContractUsage.Interaction], client: String, directory: String, throwing: Bool = false) throws -> URL {
        let url = URL(fileURLWithPath: directory).appendingPathComponent("\(client).json")
        do {
            // The lock is held while writing, so two stubs' writes never interleave.
            try files.withLock { files in
                files[url.path, default: []].formUnion(interactions)
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                try ContractUsage(client: client, interactions: files[url.path] ?? []).write(to: url)
            }
        } catch {
            if throwing { throw error }
            FileHandle.standardError.write(
                Data("ContractStub: cannot write the usage file \(url.path): \(error.localizedDescription)\n".utf8))
        }
        return url
    }

    static func record(_ interactions: [ContractUsage.Interaction], client: String, directory: String) {
        _ = try? add(interactions, client: client, directory: directory, throwing: false)
    }
}
