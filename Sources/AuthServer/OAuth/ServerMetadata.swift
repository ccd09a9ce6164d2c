import AuthCore

/// authd's authorization-server metadata (RFC 8414 §2), served at
/// `/.well-known/oauth-authorization-server` and, with OpenID Connect Discovery 1.0 §3's
/// fields besides, at `/.well-known/openid-configuration`: the issuer (the `iss` of its
/// tokens) and every endpoint's URL under the public base URL.
///
/// ```swift
/// let metadata = ServerMetadata(issuer: "https://auth.example.com", base: "https://auth.example.com")
/// metadata.tokenEndpoint   // "https://auth.example.com/oauth/token"
/// ```
public struct ServerMetadata: Codable, Sendable, Equatable {
    /// The `iss` claim of authd's tokens.
    public var issuer: String
    /// `GET /.well-known/jwks.json`.
    public var jwksURI: String
    /// `POST /oauth/token`.
    public var tokenEndpoint: String
    /// `POST /oauth/introspect`.
    public var introspectionEndpoint: String
    /// `POST /oauth/revoke`.
    public var revocationEndpoint: String
    /// `GET`/`POST /authorize`.
    public var authorizationEndpoint: String
    /// `authorization_code`, `refresh_token` and `client_credentials`.
    public var grantTypesSupported: [String]
    /// `code` only: the authorization code flow (RFC 9700 §2.1.2).
    public var responseTypesSupported = ["code"]
    /// `query` and `form_post`.
    public var responseModesSupported = AuthorizationRequest.ResponseMode.allCases.map(\.rawValue)
    /// `S256` only (RFC 9700 §2.1.1).
    public var codeChallengeMethodsSupported = ["S256"]
    /// The scopes clients may ask for.
    public var scopesSupported = OIDCClientSettings.supportedScopes
    /// RFC 9207: `/authorize` answers carry `iss`.
    public var authorizationResponseIssParameterSupported = true

    /// How relying parties authenticate at the token endpoint.
    public var tokenEndpointAuthMethodsSupported: [String]
    /// … at the introspection endpoint.
    public var introspectionEndpointAuthMethodsSupported: [String]
    /// … at the revocation endpoint.
    public var revocationEndpointAuthMethodsSupported: [String]
    /// The `alg` of access tokens: `EdDSA` (Ed25519).
    public var accessTokenSigningAlgValuesSupported = ["EdDSA"]

    /// The metadata of an authd reached at `base` (no trailing slash).
    public init(issuer: String, base: String) {
        self.issuer = issuer
        jwksURI = base + "/.well-known/jwks.json"
        tokenEndpoint = base + "/oauth/token"
        introspectionEndpoint = base + "/oauth/introspect"
        revocationEndpoint = base + "/oauth/revoke"
        authorizationEndpoint = base + "/authorize"
        grantTypesSupported = Self.grantTypes
        tokenEndpointAuthMethodsSupported = ClientAuthentication.methods + ["none"]
        introspectionEndpointAuthMethodsSupported = ClientAuthentication.methods
        revocationEndpointAuthMethodsSupported = ClientAuthentication.methods
    }

    /// The grants `POST /oauth/token` offers.
    static let grantTypes = ["authorization_code", "refresh_token", "client_credentials"]

    private enum CodingKeys: String, CodingKey {
        case issuer
        case jwksURI = "jwks_uri"
        case tokenEndpoint = "token_endpoint"
        case introspectionEndpoint = "introspection_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case authorizationEndpoint = "authorization_endpoint"
        case grantTypesSupported = "grant_types_supported"
        case responseTypesSupported = "response_types_supported"
        case responseModesSupported = "response_modes_supported"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case scopesSupported = "scopes_supported"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case introspectionEndpointAuthMethodsSupported = "introspection_endpoint_auth_methods_supported"
        case revocationEndpointAuthMethodsSupported = "revocation_endpoint_auth_methods_supported"
        case accessTokenSigningAlgValuesSupported = "access_token_signing_alg_values_supported"
    }
}
