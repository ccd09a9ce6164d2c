import AuthCore
import Foundation

/// An identity as `GET /me/identities` and `POST /me/identities` show it:
/// `{"id", "provider", "email", "name", "created_at", "last_used_at"}` (`email` and `name`
/// when the provider gave them; no `sub`: the provider's id for the user is the provider's
/// business).
public struct IdentityResponse: Codable, Sendable, Equatable {
    /// Its id (`DELETE /me/identities/{id}`).
    public var id: String
    /// The provider's name.
    public var provider: String
    /// The provider's email for it, if it gave one.
    public var email: String?
    /// The person's name as the provider gave it (Apple's, from the first sign-in).
    public var name: String?
    /// When it was linked (ISO 8601).
    public var createdAt: String
    /// When it last signed in (ISO 8601).
    public var lastUsedAt: String

    /// The value of `identity`.
    public init(_ identity: Identity) {
        id = identity.id.uuidString.lowercased()
        provider = identity.provider
        email = identity.email
        name = identity.name
        createdAt = identity.createdAt.formatted(.iso8601)
        lastUsedAt = identity.lastUsedAt.formatted(.iso8601)
    }

    private enum CodingKeys: String, CodingKey {
        case id, provider, email, name
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
    }
}

/// The body of `GET /me/identities`: `{"identities": […]}`, oldest first.
public struct IdentityList: Codable, Sendable, Equatable {
    /// The account's identities.
    public var identities: [IdentityResponse]

    /// Creates the value.
    public init(identities: [IdentityResponse]) {
        self.identities = identities
    }
}
