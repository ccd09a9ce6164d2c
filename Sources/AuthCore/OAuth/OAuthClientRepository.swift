import Foundation

/// Storage of the registered relying parties (``OAuthClient``).
///
/// ```swift
/// let added = try await storage.clients.add(client)   // false: the id is taken
/// let found = try await storage.clients.client(id: "orders-api")
/// ```
public protocol OAuthClientRepository: Sendable {
    /// Stores a new client; false, storing nothing, when its id is registered already.
    func add(_ client: OAuthClient) async throws -> Bool
    /// The client with this id.
    func client(id: String) async throws -> OAuthClient?
    /// Every client, by id.
    func all() async throws -> [OAuthClient]
    /// Deletes the client with this id; false when there is none.
    func remove(id: String) async throws -> Bool
}
