import ContractKit
import ContractStub
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// Serves a ``ContractStub/ContractStub`` over HTTP, for clients that do not use
/// URLSession (or other languages): every request goes to the stub.
///
/// ```swift
/// try await ContractStubServer.withRunning(stub) { baseURL in
///     // point the client under test at baseURL (http://127.0.0.1:<ephemeral port>)
/// }
/// ```
public enum ContractStubServer {
    /// Runs a server for `stub` on `host:port` until the task is cancelled (or, with
    /// `gracefulShutdownSignals`, until one arrives); `onListening` gets the bound port.
    public static func run(
        _ stub: ContractStub,
        host: String = "127.0.0.1",
        port: Int = 0,
        gracefulShutdownSignals: Bool = false,
        logger: Logger = quietLogger,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        try await serve(host: host, port: port, gracefulShutdownSignals: gracefulShutdownSignals, logger: logger, onListening: onListening) {
            stub.respond(to: $0)
        }
    }

    /// Runs a server on `host:port` that answers every request with `respond`, until the
    /// task is cancelled (or, with `gracefulShutdownSignals`, until SIGINT or SIGTERM);
    /// `contract record` serves its recording proxy this way.
    ///
    /// ```swift
    /// try await ContractStubServer.serve(port: 0, gracefulShutdownSignals: true) { request in
    ///     ContractResponse(status: 204, headers: [], body: Data())
    /// }
    /// ```
    public static func serve(
        host: String = "127.0.0.1",
        port: Int = 0,
        gracefulShutdownSignals: Bool = false,
        logger: Logger = quietLogger,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in },
        respond: @escaping @Sendable (ContractRequest) async -> ContractResponse
    ) async throws {
        let app = Application(
            responder: ClosureResponder(respond: respond),
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { await onListening($0.localAddress?.port ?? port) },
            logger: logger
        )
        if gracefulShutdownSignals {
            try await app.runService()
        } else {
            try await app.run()
        }
    }

    /// Starts a server for `stub` on an ephemeral port of 127.0.0.1, runs `body` with its
    /// base URL, and stops it.
    @discardableResult
    public static func withRunning<T: Sendable>(_ stub: ContractStub, _ body: @Sendable (URL) async throws -> T) async throws -> T {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await run(stub, onListening: { continuation.yield($0) })
            }
            defer { group.cancelAll() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next(), let url = URL(string: "http://127.0.0.1:\(port)") else {
                throw CancellationError()
            }
            return try await body(url)
        }
    }

    /// Logs nothing below critical: a stub in a test should not chatter.
    public static var quietLogger: Logger {
        var logger = Logger(label: "contract-stub")
        logger.logLevel = .critical
        return logger
    }
}

/// Hands every request to a function of ``ContractRequest``.
struct ClosureResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let respond: @Sendable (ContractRequest) async -> ContractResponse

    func respond(to request: Request, context: Context) async throws -> Response {
        let body = try await request.body.collect(upTo: 16 * 1024 * 1024)
        let contractRequest = ContractRequest(
            method: request.method.rawValue,
            target: request.uri.description,
            headers: request.headers.map { (name: $0.name.rawName, value: $0.value) },
            body: body.readableBytes == 0 ? nil : Data(body.readableBytesView)
        )
        let answer = await respond(contractRequest)
        var headers = HTTPFields()
        for header in answer.headers {
            if let name = HTTPField.Name(header.name) { headers.append(HTTPField(name: name, value: header.value)) }
        }
        return Response(status: .init(code: answer.status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
    }
}
