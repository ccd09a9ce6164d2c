import Foundation

/// authd as an OpenID Connect provider (OpenID Connect Core 1.0, RFC 6749 §4.1, RFC 7636):
/// the codes `/authorize` gives once the browser has signed in, their exchange at the token
/// endpoint for an access token, an ID token and (with `offline_access`, or for a
/// first-party client) a refresh token, the client's refreshes, and `/userinfo`.
///
/// Each exchange starts a session of its own for the client (listed with the user's other
/// sessions, ended by signing out in the browser that started it), whose id the access
/// token carries as `sid`; the ID token's `sid` is the browser's sign-in, which
/// RP-Initiated Logout names.
///
/// ```swift
/// let provider = OpenIDProvider(sessions: sessions, keys: keys)
/// let code = try await provider.issueCode(for: request, signIn: browserBrowserSignIn)
/// let tokens = try await provider.exchange(code: code, client: client, redirectURI: uri, verifier: verifier, origin: origin)
/// ```
public struct OpenIDProvider<Storage: AuthStorage>: Sendable {
    /// Sessions: the storage, issuer and clock they share, and the refreshes.
    public let sessions: SessionService<Storage>
    /// Where ID-token keys come from the first time an algorithm is asked for.
    public let keys: KeyService<Storage>
    /// A session's absolute lifetime in seconds.
    public let sessionMaxAge: Int

    /// Creates the provider.
    public init(sessions: SessionService<Storage>, keys: KeyService<Storage>, sessionMaxAge: Int) {
        self.sessions = sessions
        self.keys = keys
        self.sessionMaxAge = sessionMaxAge
    }

    private var storage: Storage { sessions.storage }
    private var issuer: AccessTokenIssuer { sessions.issuer }
    private var clock: any WallClock { sessions.clock }
    /// The codes.
    public var codes: AuthorizationCodes<Storage> { AuthorizationCodes(storage: storage, clock: clock) }

    /// What a token request answers (RFC 6749 §5.1, OpenID Connect Core §3.1.3.3).
    public struct Tokens: Sendable, Equatable {
        public var accessToken: String
        public var expiresIn: Int
        public var refreshToken: String?
        public var idToken: String?
        /// The scopes granted, space-separated.
        public var scope: String
    }

    /// The registered client `id`, nil when there is none.
    public func client(id: String) async throws -> OAuthClient? {
        guard (try? OAuthClient.validate(id: id)) != nil else { return nil }
        return try await storage.clients.client(id: id)
    }

    /// Whether `signIn` still holds: its session live (not signed out, revoked or past its
    /// end) and its account enabled. A browser's cookie outlives neither.
    public func isLive(_ signIn: BrowserSignIn) async throws -> Bool {
        guard try await storage.refreshTokens.isSessionLive(signIn.sessionID, now: clock.now),
            let user = try await storage.users.user(withID: signIn.userID)
        else { return false }
        return !user.isDisabled
    }

    /// Whether `user` must be asked to consent to `request` (OpenID Connect Core §3.1.2.4):
    /// never for a first-party client; for another, when `prompt=consent` says so or it asks
    /// for a scope the user has not allowed it.
    public func needsConsent(_ request: AuthorizationRequest, userID: UUID) async throws -> Bool {
        if request.client.signIn.firstParty { return false }
        if request.prompt.contains(.consent) { return true }
        let allowed = try await storage.consents.scopes(userID: userID, clientID: request.client.id) ?? []
        return !Set(request.scopes).isSubset(of: allowed)
    }

    /// Records that the user allowed `request`'s scopes (with those allowed before).
    public func recordConsent(_ request: AuthorizationRequest, userID: UUID) async throws {
        let before = try await storage.consents.scopes(userID: userID, clientID: request.client.id) ?? []
        let scopes = OIDCClientSettings.supportedScopes.filter { request.scopes.contains($0) || before.contains($0) }
        try await storage.consents.grant(userID: userID, clientID: request.client.id, scopes: scopes, at: clock.now)
    }

    /// A code for `request`, in the browser sign-in `signIn`.
    public func issueCode(for request: AuthorizationRequest, signIn: BrowserSignIn) async throws -> String {
        try await codes.issue(
            for: request, userID: signIn.userID, authTime: signIn.authTime, methods: signIn.methods, browserSession: signIn.sessionID)
    }

    /// Exchanges `code` for tokens (RFC 6749 §4.1.3): `client` authenticated already (or
    /// public), the redirect URI and PKCE verifier those of the request. The browser sign-in
    /// must still hold and the account be enabled.
    /// - Throws: `invalid_grant` (``AuthorizationCodes/redeem(_:clientID:redirectURI:verifier:)``,
    ///   or a sign-in that ended); `service_unavailable`.
    public func exchange(code: String, client: OAuthClient, redirectURI: String?, verifier: String?, origin: RequestOrigin)
        async throws -> Tokens
    {
        let grant = try await codes.redeem(code, clientID: client.id, redirectURI: redirectURI, verifier: verifier)
        let now = clock.now
        guard let user = try await storage.users.user(withID: grant.userID), !user.isDisabled else { throw AuthError.invalidGrant }
        if let browser = grant.browserSession, !(try await storage.refreshTokens.isSessionLive(browser, now: now)) {
            throw AuthError.invalidGrant
        }
        // The client's own session: its refresh token is given out only with offline_access
        // or to a first-party client (OpenID Connect Core §11), but the session exists either
        // way, so the user sees it and signing out ends it.
        let session = UUID()
        let refresh = RefreshToken.generate()
        try await storage.refreshTokens.store(
            RefreshTokenRecord(
                tokenHash: refresh.hash, familyID: session, userID: user.id,
                expiresAt: now.addingTimeInterval(TimeInterval(sessions.refreshLifetime)),
                sessionExpiresAt: now.addingTimeInterval(TimeInterval(sessionMaxAge)), origin: origin, clientID: client.id,
                browserSession: grant.browserSession, scopes: grant.scopes))
        try await codes.attach(session: session, toCodeHash: grant.codeHash)
        let access = try issuer.issue(
            subject: user.id.uuidString.lowercased(), sessionID: session, clientID: client.id, authenticatedAt: grant.authTime,
            scopes: grant.scopes)
        var idToken: String?
        if grant.scopes.contains("openid") {
            let algorithm = client.signIn.idTokenAlgorithm
            let claims = IDTokenClaims(
                grant: grant, issuer: issuer.issuer, sessionID: grant.browserSession, accessToken: access.value,
                algorithm: algorithm.rawValue, now: now)
            idToken = try await signIDToken(claims, algorithm: algorithm)
        }
        let offline = grant.scopes.contains("offline_access") || client.signIn.firstParty
        return Tokens(
            accessToken: access.value, expiresIn: access.expiresIn, refreshToken: offline ? refresh.token : nil, idToken: idToken,
            scope: grant.scopes.joined(separator: " "))
    }

    /// A client's refresh (RFC 6749 §6): the token must be of a session issued to `client`;
    /// rotation and reuse detection as for authd's own sessions.
    /// - Throws: `invalid_grant` for a token that is not (or no longer) good for `client`.
    public func refresh(refreshToken: String, client: OAuthClient, origin: RequestOrigin) async throws -> Tokens {
        let grant: TokenGrant
        do {
            grant = try await sessions.refresh(refreshToken: refreshToken, origin: origin, clientID: client.id)
        } catch let error as AuthError where error.code == .invalidToken {
            throw AuthError.invalidGrant
        }
        let claims = try issuer.verify(grant.accessToken, anyAudience: true)
        return Tokens(
            accessToken: grant.accessToken, expiresIn: grant.expiresIn, refreshToken: grant.refreshToken, idToken: nil,
            scope: claims.scope ?? "")
    }

    /// The claims `/userinfo` answers for `accessToken` (OpenID Connect Core §5.3): `sub`,
    /// and by scope `preferred_username` (`profile`), `email` and `email_verified` (`email`).
    /// The token must be a client's with the `openid` scope, its session live and its
    /// account enabled.
    /// - Throws: ``AuthError/invalidToken``.
    public func userInfo(accessToken: String) async throws -> UserInfo {
        let claims = try issuer.verify(accessToken, anyAudience: true)
        let scopes = Set((claims.scope ?? "").split(separator: " ").map(String.init))
        guard scopes.contains("openid"), let sid = claims.sid.flatMap(UUID.init(uuidString:)), let userID = UUID(uuidString: claims.sub)
        else { throw AuthError.invalidToken }
        // The claims only show: a read replica may confirm the session and the account.
        let now = clock.now
        let user = try await storage.readConfirming { storage -> User? in
            guard try await storage.refreshTokens.isSessionLive(sid, now: now), let user = try await storage.users.user(withID: userID),
                !user.isDisabled
            else { return nil }
            return user
        }
        guard let user else { throw AuthError.invalidToken }
        return UserInfo(
            sub: claims.sub, preferredUsername: scopes.contains("profile") ? user.username : nil,
            email: scopes.contains("email") ? user.email : nil,
            emailVerified: scopes.contains("email") && user.email != nil ? user.emailVerifiedAt != nil : nil)
    }

    /// Signs `claims` with the current key of `algorithm`, making the algorithm's first key
    /// when it has none yet.
    func signIDToken(_ claims: IDTokenClaims, algorithm: SigningAlgorithm) async throws -> String {
        do {
            return try issuer.signIDToken(claims, algorithm: algorithm)
        } catch let error as AuthError where error.code == .serviceUnavailable {
            try issuer.install(try await keys.ensureKey(algorithms: [.edDSA, algorithm]))
            return try issuer.signIDToken(claims, algorithm: algorithm)
        }
    }

    /// Ends the browser sign-in `signIn` and every session it started (RP-Initiated Logout
    /// 1.0 §2); returns how many sessions ended.
    @discardableResult
    public func signOut(_ signIn: BrowserSignIn, origin: RequestOrigin) async throws -> Int {
        let now = clock.now
        let ended = try await storage.refreshTokens.revokeBrowserSession(signIn.sessionID, ofUser: signIn.userID, now: now)
        try await storage.audit.record(
            SecurityEvent(kind: .loggedOut, at: now, userID: signIn.userID, origin: origin, detail: "browser, \(ended) sessions"))
        return ended
    }
}

/// The claims of `/userinfo` (OpenID Connect Core §5.3.2).
public struct UserInfo: Codable, Sendable, Equatable {
    public var sub: String
    public var preferredUsername: String?
    public var email: String?
    public var emailVerified: Bool?

    enum CodingKeys: String, CodingKey {
        case sub, email
        case preferredUsername = "preferred_username"
        case emailVerified = "email_verified"
    }
}
