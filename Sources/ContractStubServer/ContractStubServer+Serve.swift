import Hummingbird
import Logging
import ServiceLifecycle

extension ContractStubServer {
    /// Runs `app` until the task is cancelled (or, with `gracefulShutdownSignals`, until
    /// SIGINT or SIGTERM), and then shuts it down gracefully: the cancellation is not passed on to the
    /// server, which would drop a connection accepted but not yet taken up with its writer
    /// unfinished, a fault NIO traps on. A request still held 2 s after the shutdown began
    /// (a delay fault, a receiver told to hang) is then cancelled.
    ///
    /// ```swift
    /// let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    /// let server = Task { try await ContractStubServer.serve(app) }
    /// // …
    /// server.cancel()
    /// ```
    public static func serve(_ app: some ApplicationProtocol, gracefulShutdownSignals: Bool = false) async throws {
        var configuration = ServiceGroupConfiguration(services: [app], logger: quietLogger)
        configuration.gracefulShutdownSignals = gracefulShutdownSignals ? [.sigterm, .sigint] : []
        configuration.maximumGracefulShutdownDuration = .seconds(2)
        let group = ServiceGroup(configuration: configuration)
        // An unstructured task does not inherit this one's cancellation.
        let running = Task { try await group.run() }
        try await withTaskCancellationHandler {
            try await running.value
        } onCancel: {
            Task { await group.triggerGracefulShutdown() }
        }
    }
}
