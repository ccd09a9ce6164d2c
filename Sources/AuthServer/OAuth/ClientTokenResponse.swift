import AuthCore

/// The body of a `client_credentials` grant (RFC 6749 §4.4.3): an access token, no refresh token.
///
/// ```swift
/// JSONResponse.make(status: .ok, body: ClientTokenResponse(issued))
/// ```
public struct ClientTokenResponse: Codable, Sendable, Equatable {
    /// The signed JWT.
    public var accessToken: String
    /// Always `Bearer`.
    public var tokenType = "Bearer"
    /// Seconds until it expires.
    public var expiresIn: Int

    /// The body for `issued`.
    public init(_ issued: AccessTokenIssuer.Issued) {
        accessToken = issued.value
        expiresIn = issued.expiresIn
    }

    private enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
    }
}
