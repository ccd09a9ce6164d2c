import ContractStubServer
import Hummingbird
import Logging

/// Serves a router on `127.0.0.1` and a free port for the length of `body`: the one
/// "serve on port 0" of the contract tests and benchmarks.
///
/// ```swift
/// let router = Router()
/// router.get("/ping") { _, _ in "pong" }
/// try await EphemeralServer.withRunning(router) { baseURL in
///     // baseURL is "http://127.0.0.1:PORT"
/// }
/// ```
public enum EphemeralServer {
    /// Runs `router` until `body` returns, handing `body` the base URL.
    public static func withRunning<T: Sendable>(
        _ router: Router<BasicRequestContext>,
        _ body: @Sendable (String) async throws -> T
    ) async throws -> T {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        var quiet = Logger(label: "ephemeral-server")
        quiet.logLevel = .critical
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) }, logger: quiet
        )
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await ContractStubServer.serve(app) }
            defer { group.cancelAll() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw CancellationError() }
            return try await body("http://127.0.0.1:\(port)")
        }
    }
}
