import AsyncHTTPClient
import AuthCore
import Foundation
import NIOCore
import NIOHTTP1

/// Posts messages to the delivery URL with AsyncHTTPClient. Redirects are never followed
/// (``makeClient()``): a message carries a token, and goes where it was configured to or
/// not at all; a 3xx is a failed attempt, retried like a 5xx. Failures are described
/// without the URL or the body.
///
/// ```swift
/// let client = HTTPDeliveryTransport.makeClient()
/// let transport = HTTPDeliveryTransport(url: configuration.url, client: client)
/// let status = try await transport.post(body, headers: headers, timeout: 10)
/// try await client.shutdown()
/// ```
public struct HTTPDeliveryTransport: DeliveryTransport {
    /// Where messages go.
    public let url: URL
    /// The client: one made by ``makeClient()`` (`HTTPClient.shared` follows redirects).
    public let client: HTTPClient

    /// Creates the transport.
    public init(url: URL, client: HTTPClient) {
        self.url = url
        self.client = client
    }

    /// A client that follows no redirect; its owner shuts it down.
    public static func makeClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    public func post(_ body: Data, headers: [(name: String, value: String)], timeout: TimeInterval) async throws -> Int {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        for header in headers {
            request.headers.add(name: header.name, value: header.value)
        }
        request.headers.replaceOrAdd(name: "User-Agent", value: "authd")
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(request, timeout: .milliseconds(Int64(timeout * 1_000)))
            // The answer's body is not wanted; reading a little of it lets the connection be reused.
            _ = try? await response.body.collect(upTo: 64 * 1024)
            return Int(response.status.code)
        } catch let error as HTTPClientError {
            throw DeliveryTransportError(reason: "\(error)")
        } catch {
            throw DeliveryTransportError(reason: String(describing: type(of: error)))
        }
    }
}

/// A post that got no answer; `reason` names the failure (a refused connection, a
/// timeout), never the URL's credentials or the body.
///
/// ```swift
/// catch let error as DeliveryTransportError { print(error.reason) }
/// ```
public struct DeliveryTransportError: Error, Sendable, CustomStringConvertible {
    /// Why.
    public let reason: String

    public var description: String { reason }
}
