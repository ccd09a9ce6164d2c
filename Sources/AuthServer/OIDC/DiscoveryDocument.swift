import AuthCore

/// The OpenID Provider metadata of `/.well-known/openid-configuration` (OpenID Connect
/// Discovery 1.0 §3): the authorization server's (``ServerMetadata``, RFC 8414) and what an
/// OpenID Connect client reads besides: the userinfo and end-session endpoints, the subject
/// type, the ID tokens' algorithms and the claims.
///
/// ```swift
/// let document = DiscoveryDocument(issuer: "https://auth.example.com", base: "https://auth.example.com")
/// document.idTokenSigningAlgValuesSupported   // ["RS256", "ES256", "EdDSA"]
/// ```
public struct DiscoveryDocument: Encodable, Sendable {
    /// The authorization server's metadata.
    public var server: ServerMetadata
    /// `GET`/`POST /userinfo`.
    public var userinfoEndpoint: String
    /// `GET /logout` (RP-Initiated Logout 1.0).
    public var endSessionEndpoint: String
    /// `public`: `sub` is the account's id for every client.
    public var subjectTypesSupported = ["public"]
    /// RS256 first, OpenID Connect's default; ES256 and EdDSA per client.
    public var idTokenSigningAlgValuesSupported = [SigningAlgorithm.rs256, .es256, .edDSA].map(\.rawValue)
    /// What ID tokens and `/userinfo` may say.
    public var claimsSupported = [
        "iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "at_hash", "sid", "amr", "acr", "azp", "preferred_username", "email",
        "email_verified",
    ]
    /// `page`: authd's pages are plain web pages.
    public var displayValuesSupported = ["page"]
    /// The languages of the pages (`ui_locales`).
    public var uiLocalesSupported = MessageCatalogue.builtIn.languages
    /// No `claims` request parameter, no request objects (OpenID Connect Core §5.5, §6).
    public var claimsParameterSupported = false
    public var requestParameterSupported = false
    public var requestURIParameterSupported = false

    /// The document of an authd reached at `base` (no trailing slash).
    public init(issuer: String, base: String) {
        server = ServerMetadata(issuer: issuer, base: base)
        userinfoEndpoint = base + "/userinfo"
        endSessionEndpoint = base + "/logout"
    }

    private enum CodingKeys: String, CodingKey {
        case userinfoEndpoint = "userinfo_endpoint"
        case endSessionEndpoint = "end_session_endpoint"
        case subjectTypesSupported = "subject_types_supported"
        case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
        case claimsSupported = "claims_supported"
        case displayValuesSupported = "display_values_supported"
        case uiLocalesSupported = "ui_locales_supported"
        case claimsParameterSupported = "claims_parameter_supported"
        case requestParameterSupported = "request_parameter_supported"
        case requestURIParameterSupported = "request_uri_parameter_supported"
    }

    public func encode(to encoder: any Encoder) throws {
        try server.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(userinfoEndpoint, forKey: .userinfoEndpoint)
        try container.encode(endSessionEndpoint, forKey: .endSessionEndpoint)
        try container.encode(subjectTypesSupported, forKey: .subjectTypesSupported)
        try container.encode(idTokenSigningAlgValuesSupported, forKey: .idTokenSigningAlgValuesSupported)
        try container.encode(claimsSupported, forKey: .claimsSupported)
        try container.encode(displayValuesSupported, forKey: .displayValuesSupported)
        try container.encode(uiLocalesSupported, forKey: .uiLocalesSupported)
        try container.encode(claimsParameterSupported, forKey: .claimsParameterSupported)
        try container.encode(requestParameterSupported, forKey: .requestParameterSupported)
        try container.encode(requestURIParameterSupported, forKey: .requestURIParameterSupported)
    }
}
