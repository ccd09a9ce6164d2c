import Foundation

/// A provider's refresh token waiting to be revoked at the provider (queued when its identity
/// went or a newer token replaced it), as the sender claims it.
///
/// ```swift
/// for due in try await storage.identities.claimRevocations(limit: 10, now: now, leaseUntil: now + 30) { print(due.provider) }
/// ```
public struct ProviderRevocation: Sendable, Equatable {
    /// The row's id.
    public var id: Int64
    /// The provider's name.
    public var provider: String
    /// The identity's subject (the sealed token is bound to it).
    public var subject: String
    /// The client id the token was issued to.
    public var clientID: String
    /// The account the identity was, if it still exists.
    public var userID: UUID?
    /// The token, sealed by ``ProviderTokenEndpoint/seal(refreshToken:provider:subject:)``.
    public var sealedToken: Data
    /// When it was queued.
    public var createdAt: Date
    /// Attempts so far, this one included.
    public var attempts: Int

    /// Creates the value.
    public init(
        id: Int64, provider: String, subject: String, clientID: String, userID: UUID?, sealedToken: Data, createdAt: Date, attempts: Int
    ) {
        self.id = id
        self.provider = provider
        self.subject = subject
        self.clientID = clientID
        self.userID = userID
        self.sealedToken = sealedToken
        self.createdAt = createdAt
        self.attempts = attempts
    }
}
