import AuthCore
import Foundation
import Synchronization

/// Relying parties in memory, by id, as the PostgreSQL table keeps them.
///
/// ```swift
/// let clients = InMemoryOAuthClientRepository()
/// _ = try await clients.add(client)
/// ```
public final class InMemoryOAuthClientRepository: OAuthClientRepository {
    private let clients = Mutex<[String: OAuthClient]>([:])

    /// An empty repository.
    public init() {}

    public func add(_ client: OAuthClient) async throws -> Bool {
        clients.withLock { all in
            guard all[client.id] == nil else { return false }
            all[client.id] = client
            return true
        }
    }

    public func client(id: String) async throws -> OAuthClient? {
        clients.withLock { $0[id] }
    }

    public func all() async throws -> [OAuthClient] {
        clients.withLock { $0.values.sorted { $0.id < $1.id } }
    }

    public func remove(id: String) async throws -> Bool {
        clients.withLock { $0.removeValue(forKey: id) != nil }
    }
}
