import Foundation

/// Where ``DeliveryService`` posts a message: the delivery URL over HTTP in authd
/// (AsyncHTTPClient, in AuthServer). Returns the status; throws when no answer came.
///
/// ```swift
/// struct Printer: DeliveryTransport {
///     func post(_ body: Data, headers: [(name: String, value: String)], timeout: TimeInterval) async throws -> Int {
///         print(String(decoding: body, as: UTF8.self)); return 204
///     }
/// }
/// ```
public protocol DeliveryTransport: Sendable {
    /// Posts `body` (JSON) with `headers` and answers the response status.
    func post(_ body: Data, headers: [(name: String, value: String)], timeout: TimeInterval) async throws -> Int
}
