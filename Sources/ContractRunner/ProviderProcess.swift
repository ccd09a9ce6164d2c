import AsyncHTTPClient
import ContractKit
import Foundation
import ProcessKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The provider as `contract.yaml` says to start it: `command` run through `/bin/sh` with
/// `{{port}}` (a free port) and the ``ProviderEnvironment``'s variables filled in, ready
/// once `ready` answers 2xx.
///
/// ```swift
/// let provider = try await ProviderProcess.start(configuration, environment: environment)
/// defer { provider.stop() }
/// let transport = HTTPTransport(baseURL: provider.baseURL)
/// ```
public final class ProviderProcess: Sendable {
    /// The provider could not be started or did not become ready.
    public struct StartError: Error, CustomStringConvertible {
        /// What happened, with the end of the provider's output.
        public let description: String

        /// Creates an error.
        public init(description: String) {
            self.description = description
        }
    }

    /// The base URL it answers on.
    public let baseURL: String
    /// The variables used (`port`, `scratch`, `bin.*`, `env.*`), for state set-up.
    public let variables: [String: JSONValue]
    private let child: ChildProcess?

    private init(baseURL: String, variables: [String: JSONValue], child: ChildProcess?) {
        self.baseURL = baseURL
        self.variables = variables
        self.child = child
    }

    /// A provider already running at `baseURL` (nothing to start or stop).
    public static func external(baseURL: String, environment: ProviderEnvironment) -> ProviderProcess {
        ProviderProcess(baseURL: baseURL, variables: environment.variables(port: URLComponents(string: baseURL)?.port ?? 0), child: nil)
    }

    /// Starts the provider and waits until it is ready.
    public static func start(
        _ configuration: ProviderConfiguration, environment: ProviderEnvironment, client: HTTPClient = .contracts
    ) async throws -> ProviderProcess {
        guard let command = configuration.command, let baseURLTemplate = configuration.baseURL else {
            throw StartError(
                description:
                    "contract.yaml does not say how to start the provider (provider.command and provider.base_url); pass --base-url for a running one"
            )
        }
        let port = try freePort()
        let values = environment.variables(port: port)
        let script: String
        let baseURL: String
        do {
            script = try command.render(values)
            baseURL = try baseURLTemplate.render(values)
        } catch {
            throw StartError(description: "contract.yaml: \(error)")
        }
        // `exec` so that stopping the shell stops the provider itself.
        let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "exec " + script], mergeErrors: true)
        let provider = ProviderProcess(baseURL: baseURL, variables: values, child: child)
        let deadline = ContinuousClock.now + .seconds(configuration.startupTimeout)
        while ContinuousClock.now < deadline {
            if let status = child.poll() {
                throw StartError(
                    description:
                        "the provider exited with status \(status) before it was ready: \(String(child.standardOutput.suffix(1500)))")
            }
            var request = HTTPClientRequest(url: baseURL + configuration.ready)
            request.method = .GET
            if let response = try? await client.execute(request, timeout: .seconds(2)), (200..<300).contains(Int(response.status.code)) {
                return provider
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        provider.stop()
        throw StartError(
            description:
                "the provider was not ready at \(baseURL)\(configuration.ready) after \(configuration.startupTimeout) s: \(String(child.standardOutput.suffix(1500)))"
        )
    }

    /// Stops a provider this process started: SIGTERM, then SIGKILL after 10 s.
    public func stop() {
        guard let child, child.poll() == nil else { return }
        child.send(SIGTERM)
        for _ in 0..<100 {
            if child.poll() != nil { return }
            usleep(100_000)
        }
        child.send(SIGKILL)
        child.wait()
    }

    /// What the provider printed so far.
    public var output: String { child?.standardOutput ?? "" }

    /// A TCP port on 127.0.0.1 nothing listens on right now, chosen at random below the
    /// system's range of ephemeral ports. A port from that range (what binding port 0 gives)
    /// may become the local end of any outgoing connection on the machine before the provider
    /// binds it, and under a test suite's load one did; below it, only another listener can
    /// take it.
    ///
    /// ```swift
    /// let port = try ProviderProcess.freePort()   // e.g. 24117
    /// ```
    public static func freePort() throws -> Int {
        let first = 10_000
        let ephemeral = firstEphemeralPort()
        if ephemeral > first + 1_000 {
            for _ in 0..<64 {
                if let port = try bind(port: Int.random(in: first..<ephemeral)) { return port }
            }
        }
        guard let port = try bind(port: 0) else { throw StartError(description: "cannot bind a socket to find a free port") }
        return port
    }

    /// The first port of the range the system gives outgoing connections and port 0 from.
    private static func firstEphemeralPort() -> Int {
        #if os(Linux)
            let range = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
            return range.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32_768
        #else
            return 49_152
        #endif
    }

    /// Binds a socket to `port` on 127.0.0.1 (0: one the system picks) and closes it; the
    /// port bound, or nil if it is taken.
    private static func bind(port: Int) throws -> Int? {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw StartError(description: "cannot open a socket to find a free port") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                #if canImport(Glibc)
                    Glibc.bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
                #else
                    Darwin.bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
                #endif
            }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }
}
