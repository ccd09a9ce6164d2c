import AsyncHTTPClient
import AuthCore
import Foundation
import NIOCore
import NIOHTTP1

/// Calls providers with AsyncHTTPClient: no redirect followed (a provider's endpoints are
/// the ones its discovery document names), each call under ``timeout``, answers cut at
/// ``maxBodySize``. Failures are described without the request's body.
///
/// ```swift
/// let transport = HTTPProviderTransport(client: HTTPDeliveryTransport.makeClient())
/// let answer = try await transport.send(ProviderRequest(get: url))
/// ```
public struct HTTPProviderTransport: ProviderTransport {
    /// The client (one that follows no redirect); its owner shuts it down.
    public let client: HTTPClient
    /// The deadline of one call.
    public let timeout: TimeAmount
    /// The largest answer read, bytes: a discovery document or key set is a few KiB.
    public let maxBodySize: Int

    /// Creates the transport.
    public init(client: HTTPClient, timeout: TimeAmount = .seconds(10), maxBodySize: Int = 256 * 1024) {
        self.client = client
        self.timeout = timeout
        self.maxBodySize = maxBodySize
    }

    public func send(_ request: ProviderRequest) async throws -> ProviderResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for header in request.headers {
            outgoing.headers.add(name: header.name, value: header.value)
        }
        outgoing.headers.replaceOrAdd(name: "User-Agent", value: "authd")
        if let body = request.body {
            outgoing.body = .bytes(ByteBuffer(bytes: body))
        }
        do {
            let response = try await client.execute(outgoing, timeout: timeout)
            let body = try await response.body.collect(upTo: maxBodySize)
            return ProviderResponse(
                status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: Data(buffer: body))
        } catch let error as HTTPClientError {
            throw ProviderTransportError(reason: "\(error)")
        } catch let error as NIOTooManyBytesError {
            throw ProviderTransportError(reason: "the answer is larger than \(maxBodySize) bytes (\(error))")
        } catch {
            throw ProviderTransportError(reason: String(describing: type(of: error)))
        }
    }
}

/// A call to a provider that got no usable answer; `reason` names the failure.
public struct ProviderTransportError: Error, Sendable, CustomStringConvertible {
    /// Why.
    public let reason: String

    public var description: String { reason }
}
