import AuthCore

/// The body of a `200` from `POST /oauth/token` for an OpenID Connect client (RFC 6749 §5.1,
/// OpenID Connect Core §3.1.3.3): `{access_token, token_type, expires_in, scope}`, with
/// `id_token` when `openid` was granted and `refresh_token` when one was issued.
///
/// ```swift
/// JSONResponse.make(status: .ok, body: OIDCTokenResponse(tokens))
/// ```
public struct OIDCTokenResponse: Codable, Sendable, Equatable {
    public var accessToken: String
    /// Always `Bearer`.
    public var tokenType = "Bearer"
    public var expiresIn: Int
    public var refreshToken: String?
    public var idToken: String?
    public var scope: String

    /// The wire form of `tokens`.
    public init(_ tokens: OpenIDProvider<some AuthStorage>.Tokens) {
        accessToken = tokens.accessToken
        expiresIn = tokens.expiresIn
        refreshToken = tokens.refreshToken
        idToken = tokens.idToken
        scope = tokens.scope
    }

    private enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
        case idToken = "id_token"
        case scope
    }
}
