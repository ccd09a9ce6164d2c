import ContractKit
import ContractStub
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// Serves a `ContractStub` over HTTP, for clients that do not use
/// URLSession (or other languages): every request goes to the stub.
///
/// ```swift
/// try await ContractStubServer.withRunning(stub) { baseURL in
///     // point the client under test at baseURL (http://127.0.0.1:<ephemeral port>)
/// }
/// ```
public enum ContractStubServer {
    /// Runs a server for `stub` on `host:port` until the task is cancelled (or, with
    /// `gracefulShutdownSignals`, until one arrives); `onListening` gets the bound port. With
    /// a `clockPath`, that path is the stub's clock as authd's `--test-clock` has it: `GET`
    /// answers `{"now", "stepped"}` and `POST {"advance": seconds}` moves it
    /// (`ContractStub.advanceClock(by:)`), so a client in another process can step it.
    public static func run(
        _ stub: ContractStub,
        host: String = "127.0.0.1",
        port: Int = 0,
        clockPath: String? = nil,
        gracefulShutdownSignals: Bool = false,
        logger: Logger = quietLogger,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        try await run(
            StubResponder(stub: stub, clockPath: clockPath), host: host, port: port, gracefulShutdownSignals: gracefulShutdownSignals,
            logger: logger, onListening: onListening)
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
        try await run(
            ClosureResponder(respond: respond), host: host, port: port, gracefulShutdownSignals: gracefulShutdownSignals, logger: logger,
            onListening: onListening)
    }

    /// An application of `responder` on `host:port`, run until cancelled or a signal.
    private static func run<Responder: HTTPResponder>(
        _ responder: Responder, host: String, port: Int, gracefulShutdownSignals: Bool, logger: Logger,
        onListening: @escaping @Sendable (Int) async -> Void
    ) async throws where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
        let app = Application(
            responder: responder,
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { await onListening($0.localAddress?.port ?? port) },
            logger: logger
        )
        try await serve(app, gracefulShutdownSignals: gracefulShutdownSignals)
    }

    /// Starts a server for `stub` on an ephemeral port of 127.0.0.1 (with its clock at
    /// `clockPath`, if given), runs `body` with its base URL, and stops it.
    @discardableResult
    public static func withRunning<T: Sendable>(_ stub: ContractStub, clockPath: String? = nil, _ body: @Sendable (URL) async throws -> T)
        async throws -> T
    {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await run(stub, clockPath: clockPath, onListening: { continuation.yield($0) })
            }
            defer { group.cancelAll() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next(), let url = URL(string: "http://127.0.0.1:\(port)") else {
                throw CancellationError()
            }
            return try await body(url)
        }
    }

    /// Logs nothing: a stub in a test should not chatter (what it received and answered is
    /// in its `ContractStub.exchanges`). A handler that drops everything, rather
    /// than a level, also spares each request the formatting of the metadata Hummingbird sets.
    public static var quietLogger: Logger {
        Logger(label: "contract-stub", factory: { _ in SwiftLogNoOpLogHandler() })
    }
}

/// Hands every request to a function of ``ContractRequest``.
struct ClosureResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let respond: @Sendable (ContractRequest) async -> ContractResponse

    func respond(to request: Request, context: Context) async throws -> Response {
        Self.response(await respond(try await Self.contractRequest(request)))
    }

    /// The request as the stub takes it (bodies up to 16 MiB), with its `Host` as sent (HTTP
    /// types keep it apart, as the authority), so that a contract can match and save it, and
    /// as the base URL its answers name (plain HTTP: the server has no TLS).
    static func contractRequest(_ request: Request) async throws -> ContractRequest {
        let body = try await request.body.collect(upTo: 16 * 1024 * 1024)
        let host = request.head.authority.map { [(name: "Host", value: $0)] } ?? []
        return ContractRequest(
            method: request.method.rawValue,
            target: request.uri.description,
            headers: host + request.headers.map { (name: $0.name.rawName, value: $0.value) },
            body: body.readableBytes == 0 ? nil : Data(body.readableBytesView),
            baseURL: request.head.authority.map { "http://\($0)" }
        )
    }

    /// `answer` as a Hummingbird response.
    static func response(_ answer: ContractResponse) -> Response {
        Response(status: .init(code: answer.status), headers: headers(answer), body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
    }

    static func headers(_ answer: ContractResponse) -> HTTPFields {
        var headers = HTTPFields()
        for header in answer.headers {
            if let name = HTTPField.Name(header.name) { headers.append(HTTPField(name: name, value: header.value)) }
        }
        return headers
    }
}

/// A request's context that keeps its connection, which a `reset` fault closes.
struct StubRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

/// Hands every request to the stub and carries out the faults a test injected: a delay
/// waits before the answer, a reset closes the connection without one, a truncated body
/// declares the whole body's `Content-Length`, writes half and closes the connection.
struct StubResponder: HTTPResponder {
    typealias Context = StubRequestContext
    let stub: ContractStub
    /// The path of the stub's clock, if it has one.
    var clockPath: String?

    /// Ends a response on purpose (the connection closes).
    struct InjectedFault: Error {}

    func respond(to request: Request, context: Context) async throws -> Response {
        if let clockPath, request.uri.path == clockPath {
            return try await clock(request)
        }
        let exchange = stub.exchange(try await ClosureResponder.contractRequest(request))
        let answer = exchange.response
        switch exchange.fault {
        case .delay(let seconds)?:
            try await Task.sleep(for: .seconds(seconds))
        case .reset?:
            context.channel.close(promise: nil)
            throw InjectedFault()
        case .truncatedBody?:
            let half = ByteBuffer(bytes: answer.body.prefix(answer.body.count / 2))
            var headers = ClosureResponder.headers(answer)
            headers[.contentLength] = nil
            let channel = context.channel
            let body = ResponseBody(contentLength: answer.body.count) { writer in
                try await writer.write(half)
                channel.close(promise: nil)
                throw InjectedFault()
            }
            return Response(status: .init(code: answer.status), headers: headers, body: body)
        case .status?, nil:
            break
        }
        return ClosureResponder.response(answer)
    }
}

extension StubResponder {
    /// `GET` the stub's time, `POST {"advance": seconds}` to move it forward.
    fileprivate func clock(_ request: Request) async throws -> Response {
        func answer(_ status: HTTPResponse.Status, _ body: JSONValue) -> Response {
            Response(
                status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: body.description)))
        }
        switch request.method {
        case .get:
            break
        case .post:
            let body = try await request.body.collect(upTo: 64 * 1024)
            let seconds = (try? JSONValue(parsing: Data(buffer: body)))?["advance"]?.doubleValue
            guard let seconds, seconds.isFinite, seconds > 0, seconds <= Interaction.longestStep else {
                return answer(
                    .badRequest,
                    [
                        "error": "invalid_request",
                        "error_description": .string(
                            "advance must be a number of seconds above 0 and at most \(Int(Interaction.longestStep))"),
                    ]
                )
            }
            stub.advanceClock(by: seconds)
        default:
            return answer(.methodNotAllowed, ["error": "method_not_allowed", "error_description": "GET or POST the clock"])
        }
        return answer(.ok, ["now": .string(DateTimeFormat.string(from: stub.now)), "stepped": .number(stub.clockSteps)])
    }
}
