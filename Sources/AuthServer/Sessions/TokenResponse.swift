import AuthCore

/// The body of a `200` from `POST /login` and `POST /token/refresh`:
/// `{access_token, token_type, expires_in, refresh_token, refresh_expires_in}`.
///
/// ```swift
/// JSONResponse.make(status: .ok, body: TokenResponse(grant))
/// ```
public struct TokenResponse: Codable, Sendable, Equatable {
    /// The signed JWT.
    public var accessToken: String
    /// Always `Bearer`.
    public var tokenType: String
    /// Seconds until the access token expires.
    public var expiresIn: Int
    /// The opaque refresh token.
    public var refreshToken: String
    /// Seconds until the refresh token expires.
    public var refreshExpiresIn: Int

    /// The wire form of `grant`.
    public init(_ grant: TokenGrant) {
        accessToken = grant.accessToken
        tokenType = grant.tokenType
        expiresIn = grant.expiresIn
        refreshToken = grant.refreshToken
        refreshExpiresIn = grant.refreshExpiresIn
    }

    private enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
        case refreshExpiresIn = "refresh_expires_in"
    }
}
