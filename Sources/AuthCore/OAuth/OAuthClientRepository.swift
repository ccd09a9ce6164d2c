import Foundation

/// Storage of the registered relying parties (``OAuthClient``).
///
/// ```swift
/// let added = try await storage.clients.add(client)   // false: the id is taken
/// let found = try await storage.clients.client(id: "orders-api")
/// try await storage.clients.revokeToken(jti: claims.jti, of: "orders-api", expiresAt: expiry)
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
    /// Records that the client's own token `jti` is revoked until it expires, at
    /// `expiresAt` (RFC 7009); a second revocation changes nothing.
    func revokeToken(jti: String, of clientID: String, expiresAt: Date) async throws
    /// Whether the client's own token `jti` was revoked.
    func isTokenRevoked(jti: String) async throws -> Bool
    /// Forgets revocations of tokens that expired before `date`, at most `limit`; returns how many.
    func deleteExpiredRevocations(before date: Date, limit: Int) async throws -> Int
}
