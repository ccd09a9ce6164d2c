import Foundation

/// What a successful login or refresh returns (the server writes it as `TokenResponse`).
///
/// ```swift
/// let grant = try await service.login(username: "alice", password: "…", origin: RequestOrigin(clientAddress: nil))
/// grant.tokenType   // "Bearer"
/// ```
public struct TokenGrant: Sendable, Equatable {
    /// The signed JWT.
    public var accessToken: String
    /// Always `Bearer`.
    public var tokenType: String
    /// Seconds until the access token expires.
    public var expiresIn: Int
    /// The opaque refresh token (256-bit random, base64url).
    public var refreshToken: String
    /// Seconds until the refresh token expires.
    public var refreshExpiresIn: Int
    /// The session it belongs to, when the service that made it says.
    public var sessionID: UUID?
    /// Its user, when the service that made it says.
    public var userID: UUID?
    /// How the login proved who it was (RFC 8176), when not by password alone: `hwk` or
    /// `swk` for a passkey (a device-bound key, or one a sync fabric may copy).
    public var methods: [String]?

    /// Creates a grant.
    public init(accessToken: String, tokenType: String = "Bearer", expiresIn: Int, refreshToken: String, refreshExpiresIn: Int) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.refreshExpiresIn = refreshExpiresIn
    }
}
