import ContractKit
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ContractStub {
    /// An ephemeral configuration whose requests this stub answers in-process. Each stub
    /// is bound through a protocol class of its own (request headers are not visible to a
    /// `URLProtocol` on Linux), so parallel tests with different stubs never share one.
    ///
    /// ```swift
    /// let client = LoginAPI(session: URLSession(configuration: stub.urlSessionConfiguration))
    /// ```
    public var urlSessionConfiguration: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [StubRegistry.protocolClass(for: self)]
        return configuration
    }

    /// A session on ``urlSessionConfiguration``.
    public var urlSession: URLSession {
        URLSession(configuration: urlSessionConfiguration)
    }
}

/// Answers URLSession requests with the stub its class is bound to. Each stub gets a
/// subclass of its own from ``ContractStub/urlSessionConfiguration``.
///
/// It is not registered globally (`URLProtocol.registerClass` does not intercept on Linux).
public class ContractStubURLProtocol: URLProtocol {
    override public class func canInit(with request: URLRequest) -> Bool {
        StubRegistry.stub(boundTo: self) != nil
    }

    override public class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    override public func startLoading() {
        guard let url = request.url, let stub = StubRegistry.stub(boundTo: type(of: self)) else {
            client?.urlProtocol(self, didFailWithError: URLError(.resourceUnavailable))
            return
        }
        let headers = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
        let path = url.path(percentEncoded: true)
        var target = path.isEmpty ? "/" : path
        if let query = url.query(percentEncoded: true) {
            target += "?" + query
        }
        let contractRequest = ContractRequest(
            method: request.httpMethod ?? "GET", target: target, headers: headers, body: Self.body(of: request),
            baseURL: Self.baseURL(of: url)
        )
        let exchange = stub.exchange(contractRequest)
        guard case .delay(let seconds)? = exchange.fault else {
            deliver(exchange, url: url)
            return
        }
        // A delay waits on a timer, not a thread; the request's timeout, when shorter, fails
        // it as URLSession would (swift-corelibs-foundation does not time out custom protocols).
        let timeout = request.timeoutInterval > 0 ? request.timeoutInterval : .infinity
        let handle = LoadingHandle(self)
        let task = Task {
            try? await Task.sleep(for: .seconds(Swift.min(seconds, timeout)))
            guard !Task.isCancelled, let loader = handle.take() else { return }
            if seconds > timeout {
                loader.client?.urlProtocol(loader, didFailWithError: URLError(.timedOut))
            } else {
                loader.deliver(exchange, url: url)
            }
        }
        pending.withLock { $0 = (handle, task) }
    }

    /// Hands `exchange`'s answer (or its fault) to the client.
    private func deliver(_ exchange: ContractStub.Exchange, url: URL) {
        if exchange.fault == .reset {
            client?.urlProtocol(self, didFailWithError: URLError(.networkConnectionLost))
            return
        }
        let answer = exchange.response
        var responseHeaders: [String: String] = [:]
        for header in answer.headers { responseHeaders[header.name] = header.value }
        let truncated = exchange.fault == .truncatedBody
        if truncated { responseHeaders["Content-Length"] = String(answer.body.count) }
        guard let response = HTTPURLResponse(url: url, statusCode: answer.status, httpVersion: "HTTP/1.1", headerFields: responseHeaders)
        else {
            client?.urlProtocol(self, didFailWithError: URLError(.badServerResponse))
            return
        }
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        if truncated {
            // Fewer bytes than Content-Length, then the connection drops.
            client?.urlProtocol(self, didLoad: answer.body.prefix(answer.body.count / 2))
            client?.urlProtocol(self, didFailWithError: URLError(.networkConnectionLost))
            return
        }
        client?.urlProtocol(self, didLoad: answer.body)
        client?.urlProtocolDidFinishLoading(self)
    }

    override public func stopLoading() {
        // Cancelled or timed out by URLSession: a delayed answer must not reach the client.
        let pending = pending.withLock { value in
            defer { value = nil }
            return value
        }
        _ = pending?.handle.take()
        pending?.task.cancel()
    }

    /// A delayed answer's timer, and the loader it answers unless ``stopLoading()`` came first.
    private let pending = Mutex<(handle: LoadingHandle, task: Task<Void, Never>)?>(nil)

    /// `scheme://host[:port]` of `url`: what the app's session asked for, whichever host.
    static func baseURL(of url: URL) -> String? {
        guard let scheme = url.scheme, let host = url.host(percentEncoded: true) else { return nil }
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
    }

    /// Linux delivers the body in `httpBody`, Apple platforms only as a stream.
    static func body(of request: URLRequest) -> Data? {
        if let body = request.httpBody { return body }
        guard let stream = request.httpBodyStream else { return nil }
        stream.open()
        defer { stream.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while stream.hasBytesAvailable {
            let read = stream.read(&buffer, maxLength: buffer.count)
            guard read > 0 else { break }
            data.append(buffer, count: read)
        }
        return data
    }
}

/// The loader of a delayed answer, handed out once: to the timer or to `stopLoading`.
/// (URLProtocol is not Sendable; the lock makes the one hand-over safe.)
final class LoadingHandle: @unchecked Sendable {
    private let lock = NSLock()
    private var loader: ContractStubURLProtocol?

    init(_ loader: ContractStubURLProtocol) {
        self.loader = loader
    }

    /// The loader, the first time only.
    func take() -> ContractStubURLProtocol? {
        lock.withLock {
            defer { loader = nil }
            return loader
        }
    }
}

/// The subclass a stub is bound to; `Slot` is a type made for that stub alone.
final class BoundStubURLProtocol<Slot>: ContractStubURLProtocol {}

/// Slot types are built at run time from these, one binary digit per level.
enum SlotRoot {}
enum SlotBit0<Previous> {}
enum SlotBit1<Previous> {}

/// Which stub each protocol class answers for, held weakly so a finished test's stub goes away.
enum StubRegistry {
    private struct Binding: @unchecked Sendable {
        weak var stub: ContractStub?
        let protocolClass: AnyClass
    }

    private struct Table {
        var byStub: [ObjectIdentifier: Binding] = [:]
        var byClass: [ObjectIdentifier: ObjectIdentifier] = [:]
        var nextSlot = 0
    }

    private static let table = Mutex(Table())

    /// The protocol class bound to `stub`, made on first use.
    static func protocolClass(for stub: ContractStub) -> AnyClass {
        table.withLock { table in
            let key = ObjectIdentifier(stub)
            if let binding = table.byStub[key], binding.stub === stub { return binding.protocolClass }
            let protocolClass: AnyClass = makeClass(slot: table.nextSlot)
            table.nextSlot += 1
            table.byStub[key] = Binding(stub: stub, protocolClass: protocolClass)
            table.byClass[ObjectIdentifier(protocolClass)] = key
            return protocolClass
        }
    }

    /// The live stub `protocolClass` is bound to.
    static func stub(boundTo protocolClass: AnyClass) -> ContractStub? {
        table.withLock { table in
            table.byClass[ObjectIdentifier(protocolClass)].flatMap { table.byStub[$0]?.stub }
        }
    }

    private static func makeClass(slot: Int) -> AnyClass {
        var type: Any.Type = SlotRoot.self
        var rest = slot
        repeat {
            type = rest & 1 == 0 ? wrap0(type) : wrap1(type)
            rest >>= 1
        } while rest > 0
        return boundClass(type)
    }

    private static func wrap0(_ type: Any.Type) -> Any.Type {
        func open<T>(_: T.Type) -> Any.Type { SlotBit0<T>.self }
        return open(type)
    }

    private static func wrap1(_ type: Any.Type) -> Any.Type {
        func open<T>(_: T.Type) -> Any.Type { SlotBit1<T>.self }
        return open(type)
    }

    private static func boundClass(_ type: Any.Type) -> AnyClass {
        func open<T>(_: T.Type) -> AnyClass { BoundStubURLProtocol<T>.self }
        return open(type)
    }
}
