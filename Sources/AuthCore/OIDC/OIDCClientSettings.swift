/// What a client that signs users in through `/authorize` (OpenID Connect) registered: where
/// the browser may be sent back, whether it holds a secret, whether it asks for consent, and
/// the scopes it may ask for. A relying party registered only to introspect and revoke
/// tokens has none (``none``).
///
/// ```swift
/// let settings = try OIDCClientSettings(redirectURIs: ["com.example.app:/callback"], isPublic: true)
/// settings.isPublic   // true: no secret, PKCE required
/// ```
public struct OIDCClientSettings: Sendable, Equatable {
    /// Where `/authorize` may redirect with a code (``RedirectURI/accepts(_:)``).
    public var redirectURIs: [RedirectURI]
    /// Where `/logout` may redirect after ending the session.
    public var postLogoutRedirectURIs: [RedirectURI]
    /// A native or browser app: it holds no secret, and every code it asks for must carry a
    /// PKCE challenge (RFC 9700 §2.1.1).
    public var isPublic: Bool
    /// An app of the operator's own: no consent page.
    public var firstParty: Bool
    /// The scopes it may ask for, of ``supportedScopes``.
    public var scopes: [String]
    /// What its ID tokens are signed with (`--id-token-alg`): RS256 unless it says otherwise,
    /// the one algorithm every OpenID Connect client accepts (Core §3.1.3.7).
    public var idTokenAlgorithm: SigningAlgorithm

    /// The scopes authd knows (OpenID Connect Core §5.4, §11).
    public static let supportedScopes = ["openid", "profile", "email", "offline_access"]

    /// A relying party that does not sign users in.
    public static let none = OIDCClientSettings(checked: [], [], isPublic: false, firstParty: false, scopes: [], idTokenAlgorithm: .rs256)

    /// Checks the settings of a client that signs users in.
    /// - Throws: `invalid_request` for a redirect URI refused (``RedirectURI/init(registering:)``),
    ///   an unknown scope, or settings without a redirect URI.
    public init(
        redirectURIs: [String], postLogoutRedirectURIs: [String] = [], isPublic: Bool = false, firstParty: Bool = false,
        scopes: [String] = OIDCClientSettings.supportedScopes, idTokenAlgorithm: SigningAlgorithm = .rs256
    ) throws {
        guard !redirectURIs.isEmpty else {
            throw AuthError.invalidRequest("a client that signs users in needs at least one redirect URI (--redirect-uri)")
        }
        for scope in scopes where !Self.supportedScopes.contains(scope) {
            throw AuthError.invalidRequest(
                "unknown scope '\(scope)' (expected some of: \(Self.supportedScopes.joined(separator: ", ")))")
        }
        guard scopes.contains("openid") else { throw AuthError.invalidRequest("an OpenID Connect client's scopes must include openid") }
        self.init(
            checked: try redirectURIs.map(RedirectURI.init(registering:)),
            try postLogoutRedirectURIs.map(RedirectURI.init(registering:)), isPublic: isPublic, firstParty: firstParty,
            scopes: Self.supportedScopes.filter(scopes.contains), idTokenAlgorithm: idTokenAlgorithm)
    }

    /// Settings as stored, checked when they were registered.
    public init(
        checked redirectURIs: [RedirectURI], _ postLogoutRedirectURIs: [RedirectURI], isPublic: Bool, firstParty: Bool, scopes: [String],
        idTokenAlgorithm: SigningAlgorithm
    ) {
        self.idTokenAlgorithm = idTokenAlgorithm
        self.redirectURIs = redirectURIs
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.isPublic = isPublic
        self.firstParty = firstParty
        self.scopes = scopes
    }

    /// Whether the client signs users in at all.
    public var signsUsersIn: Bool { !redirectURIs.isEmpty }
}
