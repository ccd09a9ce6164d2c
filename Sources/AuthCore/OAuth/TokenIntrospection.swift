import Foundation

/// What `POST /oauth/introspect` says of a token (RFC 7662 §2.2): ``inactive`` for anything
/// that is not a live token of an enabled account or registered client, else its claims.
///
/// ```swift
/// let answer = try await relyingParties.introspect(token)
/// if answer.active { print(answer.sub ?? "", answer.username ?? "") }
/// ```
public struct TokenIntrospection: Sendable, Equatable {
    /// Whether the token is live.
    public var active: Bool
    /// The user's id, or the client's for a `client_credentials` token.
    public var sub: String?
    /// The account's username (tokens of accounts only).
    public var username: String?
    /// Expiry, seconds since 1970.
    public var exp: Int?
    /// Issued at, seconds since 1970.
    public var iat: Int?
    /// The issuer.
    public var iss: String?
    /// The audiences (access tokens that name any).
    public var aud: [String]?
    /// `Bearer` for an access token, `refresh_token` for a refresh token.
    public var tokenType: String?
    /// The client the token was issued to.
    public var clientID: String?
    /// The access token's id.
    public var jti: String?
    /// The session (refresh-token family) the token belongs to.
    public var sid: String?

    /// Creates an answer.
    public init(
        active: Bool, sub: String? = nil, username: String? = nil, exp: Int? = nil, iat: Int? = nil, iss: String? = nil,
        aud: [String]? = nil, tokenType: String? = nil, clientID: String? = nil, jti: String? = nil, sid: String? = nil
    ) {
        self.active = active
        self.sub = sub
        self.username = username
        self.exp = exp
        self.iat = iat
        self.iss = iss
        self.aud = aud
        self.tokenType = tokenType
        self.clientID = clientID
        self.jti = jti
        self.sid = sid
    }

    /// `{"active": false}`: all RFC 7662 lets a server say of a token it will not vouch for.
    public static let inactive = TokenIntrospection(active: false)

    /// The `token_type` of refresh tokens.
    public static let refreshTokenType = "refresh_token"
}
