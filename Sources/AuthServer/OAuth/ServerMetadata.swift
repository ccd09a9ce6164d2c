import AuthCore

/// authd's authorization-server metadata (RFC 8414 §2), served at
/// `/.well-known/oauth-authorization-server` and, the same, at
/// `/.well-known/openid-configuration`: the issuer (the `iss` of its tokens) and every
/// endpoint's URL under the public base URL.
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
    /// `refresh_token` and `client_credentials`.
    public var grantTypesSupported: [String]
    /// None: authd has no authorization endpoint (logins are `POST /login`).
    public var responseTypesSupported: [String] = []
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
        grantTypesSupported = Self.grantTypes
        tokenEndpointAuthMethodsSupported = ClientAuthentication.methods
        introspectionEndpointAuthMethodsSupported = ClientAuthentication.methods
        revocationEndpointAuthMethodsSupported = ClientAuthentication.methods
    }

    /// The grants `POST /oauth/token` offers.
    static let grantTypes = ["refresh_token", "client_credentials"]

    private enum CodingKeys: String, CodingKey {
        case issuer
        case jwksURI = "jwks_uri"
        case tokenEndpoint = "token_endpoint"
        case introspectionEndpoint = "introspection_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case grantTypesSupported = "grant_types_supported"
        case responseTypesSupported = "response_types_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case introspectionEndpointAuthMethodsSupported = "introspection_endpoint_auth_methods_supported"
        case revocationEndpointAuthMethodsSupported = "revocation_endpoint_auth_methods_supported"
        case accessTokenSigningAlgValuesSupported = "access_token_signing_alg_values_supported"
    }
}
