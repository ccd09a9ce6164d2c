import Foundation

/// An account's link to a provider: `(provider, subject)`, never an email address. The
/// email is what the provider said at the last sign-in, shown to the owner, never a key.
///
/// ```swift
/// let identities = try await storage.identities.identities(ofUser: user.id)
/// identities.first?.provider   // "apple"
/// ```
public struct Identity: Sendable, Equatable {
    /// Its id (`DELETE /me/identities/{id}`).
    public var id: UUID
    /// The account.
    public var userID: UUID
    /// The provider's name.
    public var provider: String
    /// `sub` at the provider.
    public var subject: String
    /// The provider's email for it, if it gave one.
    public var email: String?
    /// The person's name as the provider gave it (Apple: once, at the first sign-in).
    public var name: String?
    /// When it was linked.
    public var createdAt: Date
    /// When it last signed in.
    public var lastUsedAt: Date

    /// Creates the value.
    public init(
        id: UUID, userID: UUID, provider: String, subject: String, email: String?, name: String? = nil, createdAt: Date,
        lastUsedAt: Date
    ) {
        self.id = id
        self.userID = userID
        self.provider = provider
        self.subject = subject
        self.email = email
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

/// A provider sign-in whose verified email is an existing account's, waiting for that
/// account's owner to prove the account and confirm the link (`POST /me/identities` with
/// its `link_token`). Ten minutes, single use.
public struct PendingIdentityLink: Sendable, Equatable {
    /// The SHA-256 of its token.
    public var tokenHash: String
    /// The account whose email matched.
    public var userID: UUID
    /// The provider's name.
    public var provider: String
    /// `sub` at the provider.
    public var subject: String
    /// The provider's email.
    public var email: String?
    /// The name the provider gave with the sign-in.
    public var name: String?
    /// The provider's refresh token given with the sign-in (sealed as an identity's), and the
    /// client id it was issued to: kept on the identity once linked.
    public var refreshToken: SealedRefreshToken?
    /// Until when it may be confirmed.
    public var expiresAt: Date

    /// How long a link waits for its confirmation, in seconds.
    public static let lifetime = 600

    /// Creates the value.
    public init(
        tokenHash: String, userID: UUID, provider: String, subject: String, email: String?, name: String? = nil,
        refreshToken: SealedRefreshToken? = nil, expiresAt: Date
    ) {
        self.tokenHash = tokenHash
        self.userID = userID
        self.provider = provider
        self.subject = subject
        self.email = email
        self.name = name
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
    }
}

/// A provider's refresh token sealed for its identity (``ProviderTokenEndpoint/seal(refreshToken:provider:subject:)``),
/// with the client id it was issued to (what its revocation authenticates as).
public struct SealedRefreshToken: Sendable, Equatable {
    /// The sealed token.
    public var sealed: Data
    /// The client id it was issued to.
    public var clientID: String

    /// Creates the value.
    public init(sealed: Data, clientID: String) {
        self.sealed = sealed
        self.clientID = clientID
    }
}
