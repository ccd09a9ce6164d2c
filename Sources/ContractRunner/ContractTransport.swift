import AsyncHTTPClient
import ContractKit
import Foundation
import NIOCore
import NIOHTTP1

/// Sends a rendered request somewhere and returns the response: the live provider over
/// HTTP, or (for agreement checks) an in-process stub.
///
/// ```swift
/// let transport = HTTPTransport(baseURL: "http://127.0.0.1:8080")
/// let response = try await transport.send(request)
/// ```
public protocol ContractTransport: Sendable {
    /// Sends `request` and returns what came back.
    func send(_ request: ContractRequest) async throws -> ContractResponse
    /// What request targets are appended to: the URL the cookies of a sequence are kept
    /// for (``CookieJar``), and by which a redirect to the provider itself is recognised.
    var baseURL: String { get }
}

extension ContractTransport {
    /// An in-process provider's: `http://localhost`, a secure context as browsers treat it.
    public var baseURL: String { "http://localhost" }
}

/// A ``ContractTransport`` over HTTP with AsyncHTTPClient.
public struct HTTPTransport: ContractTransport {
    /// The provider's base URL; request targets are appended to it.
    public let baseURL: String
    /// The client.
    public let client: HTTPClient
    /// How long one exchange may take.
    public let timeout: TimeAmount
    /// Response bodies larger than this are an error.
    public let maxBodySize: Int

    /// Creates a transport to `baseURL`.
    public init(baseURL: String, client: HTTPClient = .contracts, timeout: TimeAmount = .seconds(30), maxBodySize: Int = 10 * 1024 * 1024) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.client = client
        self.timeout = timeout
        self.maxBodySize = maxBodySize
    }

    public func send(_ request: ContractRequest) async throws -> ContractResponse {
        // A target that is a whole URL (an endpoint a discovery document named) goes there.
        let absolute = request.target.hasPrefix("http://") || request.target.hasPrefix("https://")
        var outgoing = HTTPClientRequest(url: absolute ? request.target : baseURL + request.target)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for header in request.headers {
            outgoing.headers.add(name: header.name, value: header.value)
        }
        if let body = request.body {
            outgoing.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await client.execute(outgoing, timeout: timeout)
        let body = try await response.body.collect(upTo: maxBodySize)
        return ContractResponse(
            status: Int(response.status.code),
            headers: response.headers.map { (name: $0.name, value: $0.value) },
            body: Data(body.readableBytesView)
        )
    }
}
