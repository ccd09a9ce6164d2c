import Foundation

/// The operator's rules for relying parties: register one (with a random secret, or one the
/// operator chose), replace it, remove it, list them — each change written to the audit log.
/// `authd client …` only calls it.
///
/// ```swift
/// let registry = ClientRegistry(storage: storage)
/// let (client, secret) = try await registry.register(id: "orders-api", audiences: ["https://orders.example.com"])
/// try await registry.remove(id: "orders-api")
/// ```
public struct ClientRegistry<Storage: AuthStorage>: Sendable {
    /// The clients and the audit log.
    public let storage: Storage
    /// The time of registrations and removals.
    public let clock: any WallClock

    /// Creates the registry.
    public init(storage: Storage, clock: any WallClock = SystemClock()) {
        self.storage = storage
        self.clock = clock
    }

    /// Registers a client (``OAuthClient/register(id:audiences:secret:trustedIntrospector:signIn:now:)``
    /// checks it), replacing one of the same id when `replacing` (its old secret stops working).
    /// - Returns: the client and its secret, to show once.
    /// - Throws: `invalid_request` (the id or an audience refused, or a client of that id exists
    ///   and `replacing` is false), `service_unavailable`.
    public func register(
        id: String, audiences: [String], secret: String? = nil, trustedIntrospector: Bool = false, signIn: OIDCClientSettings = .none,
        replacing: Bool = false
    ) async throws -> (client: OAuthClient, secret: String) {
        let registered = try OAuthClient.register(
            id: id, audiences: audiences, secret: secret, trustedIntrospector: trustedIntrospector, signIn: signIn, now: clock.now)
        let client = registered.client
        if replacing, try await storage.clients.remove(id: client.id) {
            try await storage.audit.record(SecurityEvent(kind: .clientRemoved, at: client.createdAt, detail: client.id))
        }
        guard try await storage.clients.add(client) else {
            throw AuthError.invalidRequest("a client named \(client.id) exists already; replace it with --replace")
        }
        try await storage.audit.record(SecurityEvent(kind: .clientRegistered, at: client.createdAt, detail: client.id))
        return registered
    }

    /// Removes a client: its secret stops working, and its `client_credentials` tokens stop
    /// introspecting as active.
    /// - Throws: `not_found` when there is no such client, `service_unavailable`.
    public func remove(id: String) async throws {
        guard try await storage.clients.remove(id: id) else { throw AuthError.notFound("no client named \(id)") }
        try await storage.audit.record(SecurityEvent(kind: .clientRemoved, at: clock.now, detail: id))
    }

    /// Every client, by id.
    public func all() async throws -> [OAuthClient] {
        try await storage.clients.all()
    }
}
