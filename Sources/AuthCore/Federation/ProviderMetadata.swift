import Foundation

/// What authd keeps of a provider's discovery document (OpenID Connect Discovery 1.0 §3,
/// fetched from `{issuer}/.well-known/openid-configuration`): its endpoints and what it
/// supports. Every URL is `https`, or `http` on a loopback address (a provider the tests
/// run).
///
/// ```swift
/// let metadata = try ProviderMetadata.parse(body, expectedIssuer: "https://accounts.google.com")
/// metadata.jwksURI   // https://www.googleapis.com/oauth2/v3/certs
/// ```
public struct ProviderMetadata: Sendable, Equatable, Codable {
    /// `issuer`: the same string the document was fetched for (Discovery §4.3).
    public var issuer: String
    /// `authorization_endpoint`.
    public var authorizationEndpoint: String
    /// `token_endpoint`.
    public var tokenEndpoint: String?
    /// `jwks_uri`.
    public var jwksURI: String
    /// `userinfo_endpoint`.
    public var userinfoEndpoint: String?
    /// `revocation_endpoint` (RFC 7009; Apple's revokes its tokens when an account is deleted).
    public var revocationEndpoint: String?
    /// `id_token_signing_alg_values_supported`.
    public var idTokenSigningAlgorithms: [String]
    /// `token_endpoint_auth_methods_supported` (RFC 8414's default: `client_secret_basic`).
    public var tokenEndpointAuthMethods: [String]?
    /// `code_challenge_methods_supported` (RFC 8414 §2).
    public var codeChallengeMethods: [String]?
    /// `response_modes_supported`.
    public var responseModes: [String]?

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case jwksURI = "jwks_uri"
        case userinfoEndpoint = "userinfo_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case idTokenSigningAlgorithms = "id_token_signing_alg_values_supported"
        case tokenEndpointAuthMethods = "token_endpoint_auth_methods_supported"
        case codeChallengeMethods = "code_challenge_methods_supported"
        case responseModes = "response_modes_supported"
    }

    /// Creates the value.
    public init(
        issuer: String, authorizationEndpoint: String, tokenEndpoint: String?, jwksURI: String, userinfoEndpoint: String? = nil,
        revocationEndpoint: String? = nil, idTokenSigningAlgorithms: [String], tokenEndpointAuthMethods: [String]? = nil,
        codeChallengeMethods: [String]? = nil, responseModes: [String]? = nil
    ) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.jwksURI = jwksURI
        self.userinfoEndpoint = userinfoEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.idTokenSigningAlgorithms = idTokenSigningAlgorithms
        self.tokenEndpointAuthMethods = tokenEndpointAuthMethods
        self.codeChallengeMethods = codeChallengeMethods
        self.responseModes = responseModes
    }

    /// The discovery document's URL for `issuer` (Discovery §4.1: the well-known path
    /// appended to the issuer, whose trailing slash is dropped first).
    public static func discoveryURL(of issuer: String) throws(FederationError) -> URL {
        let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        return try url(base + "/.well-known/openid-configuration", field: "issuer")
    }

    /// Parses a discovery document fetched for `expectedIssuer`.
    /// - Throws: ``FederationError`` naming the field at fault: not JSON, a required field
    ///   missing, another issuer, a URL that is neither `https` nor loopback `http`, or no
    ///   signing algorithm authd verifies.
    public static func parse(_ body: Data, expectedIssuer: String) throws(FederationError) -> ProviderMetadata {
        let metadata: ProviderMetadata
        do {
            metadata = try JSONDecoder().decode(ProviderMetadata.self, from: body)
        } catch {
            throw FederationError.discovery("the discovery document is not JSON with issuer, authorization_endpoint and jwks_uri")
        }
        guard metadata.issuer == expectedIssuer else {
            throw FederationError.discovery(
                "the discovery document names the issuer '\(metadata.issuer)', not '\(expectedIssuer)' (OpenID Connect Discovery §4.3)")
        }
        for (field, value) in [
            ("issuer", metadata.issuer), ("authorization_endpoint", metadata.authorizationEndpoint), ("jwks_uri", metadata.jwksURI),
            ("token_endpoint", metadata.tokenEndpoint), ("userinfo_endpoint", metadata.userinfoEndpoint),
            ("revocation_endpoint", metadata.revocationEndpoint),
        ] {
            if let value { _ = try url(value, field: field) }
        }
        guard metadata.idTokenSigningAlgorithms.contains(where: { ProviderPublicKey.Algorithm(rawValue: $0) != nil }) else {
            throw FederationError.discovery(
                "the provider signs ID tokens with none of RS256, ES256 and EdDSA (id_token_signing_alg_values_supported: "
                    + metadata.idTokenSigningAlgorithms.joined(separator: ", ") + ")")
        }
        return metadata
    }

    /// `text` as a URL authd may call: `https`, or `http` to a loopback address.
    /// - Throws: ``FederationError`` naming `field`.
    public static func url(_ text: String, field: String) throws(FederationError) -> URL {
        guard let components = URLComponents(string: text), let url = components.url, let host = components.host, !host.isEmpty,
            components.fragment == nil
        else { throw FederationError.discovery("\(field) is not an absolute URL: '\(text)'") }
        switch components.scheme?.lowercased() {
        case "https": return url
        case "http" where RedirectURI.isLoopbackIP(host) || host.lowercased() == "localhost": return url
        default: throw FederationError.discovery("\(field) must be an https URL (plain http only on a loopback address): '\(text)'")
        }
    }
}
