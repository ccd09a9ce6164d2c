import Foundation

/// What follows a login: refresh-token rotation with reuse detection, logout, and the
/// account behind an access token.
///
/// Rules: a refresh token works once. Presenting it again (a replay, or the loser of two
/// concurrent refreshes) revokes every token descended from the same login. Expired,
/// unknown and revoked tokens, tokens of disabled accounts and of sessions past their
/// absolute end (``LoginService/sessionMaxAge``) are `invalid_token`.
///
/// ```swift
/// let sessions = SessionService(storage: storage, issuer: issuer, refreshLifetime: 2_592_000)
/// let next = try await sessions.refresh(refreshToken: grant.refreshToken, origin: origin)
/// let me = try await sessions.profile(accessToken: next.accessToken)
/// try await sessions.logout(refreshToken: next.refreshToken, origin: origin)
/// ```
public struct SessionService<Storage: AuthStorage>: Sendable {
    /// Accounts, refresh tokens and the audit log.
    public let storage: Storage
    /// Signs and verifies access tokens.
    public let issuer: AccessTokenIssuer
    /// Lifetime of each new refresh token, seconds.
    public let refreshLifetime: Int
    /// The time source.
    public let clock: any WallClock
    /// Where refresh outcomes are counted.
    public let metrics: AuthMetrics
    /// The accounts behind access tokens, read at most once per their lifetime.
    public let accounts: RecentAccounts

    /// Creates the service; `accounts` keeps none unless given a lifetime.
    public init(
        storage: Storage, issuer: AccessTokenIssuer, refreshLifetime: Int,
        clock: any WallClock = SystemClock(), metrics: AuthMetrics = AuthMetrics(),
        accounts: RecentAccounts = RecentAccounts(lifetime: 0)
    ) {
        self.storage = storage
        self.issuer = issuer
        self.refreshLifetime = refreshLifetime
        self.clock = clock
        self.metrics = metrics
        self.accounts = accounts
    }

    /// Exchanges a refresh token for a new pair; the presented token stops working.
    /// - Throws: ``AuthError/invalidToken`` (unknown, expired, revoked, replayed, disabled
    ///   account), `invalid_request`, `service_unavailable`.
    ///
    /// `clientID` names the OpenID Connect client whose session the token must be of (nil:
    /// authd's own login routes, whose tokens only are accepted then); a token of another
    /// client's session is unknown to it.
    public func refresh(refreshToken: String, origin: RequestOrigin, clientID: String? = nil) async throws -> TokenGrant {
        do {
            try Self.validatePresented(refreshToken)
        } catch {
            metrics.refresh(result: "invalid_request")
            throw error
        }
        let next = RefreshToken.generate()
        let now = clock.now
        let successor = RefreshSuccessor(
            tokenHash: next.hash, expiresAt: now.addingTimeInterval(TimeInterval(refreshLifetime)), clientID: clientID)
        let events = RotationEvents(
            rotated: SecurityEvent(kind: .tokenRefreshed, at: now, origin: origin),
            reused: SecurityEvent(kind: .refreshReuseDetected, at: now, origin: origin, detail: "family revoked")
        )
        let outcome: RefreshRotation
        do {
            outcome = try await storage.rotateRefreshToken(
                presentedHash: RefreshToken.hash(of: refreshToken), successor: successor, now: now, events: events
            )
        } catch {
            metrics.refresh(result: "error")
            throw error
        }
        metrics.refresh(result: outcome.label)
        switch outcome {
        case .rotated(let userID, let sessionID, let expiresAt, let scopes):
            let access = try issuer.issue(
                subject: userID.uuidString.lowercased(), sessionID: sessionID, clientID: clientID ?? OAuthClient.firstPartyID,
                scopes: scopes)
            // Near the session's end the successor lives only until then.
            let refreshExpiresIn = max(0, Int(expiresAt.timeIntervalSince(now).rounded(.down)))
            return TokenGrant(
                accessToken: access.value, expiresIn: access.expiresIn, refreshToken: next.token, refreshExpiresIn: refreshExpiresIn)
        case .reused:
            metrics.reuseDetected()
            throw AuthError.invalidToken
        case .unknown, .expired, .revoked, .disabled:
            throw AuthError.invalidToken
        }
    }

    /// Revokes the family of `refreshToken`. Idempotent: an unknown or revoked token is
    /// not an error.
    /// - Throws: `invalid_request` (empty token), `service_unavailable`.
    public func logout(refreshToken: String, origin: RequestOrigin) async throws {
        try Self.validatePresented(refreshToken)
        let now = clock.now
        if let userID = try await storage.refreshTokens.revokeFamily(ofTokenHash: RefreshToken.hash(of: refreshToken), now: now) {
            accounts.forget(userID)
            try await storage.audit.record(SecurityEvent(kind: .loggedOut, at: now, userID: userID, origin: origin))
        }
    }

    /// The account an access token was issued to, if the token verifies and the account
    /// exists and is enabled.
    /// - Throws: ``AuthError/invalidToken``, `service_unavailable`.
    public func profile(accessToken: String) async throws -> User {
        try await bearer(accessToken).user
    }

    /// How recent, in seconds, the authentication behind an access token must be to add or
    /// remove a way to sign in (an authenticator app, a passkey) or change the email address:
    /// RFC 9470's `max_age`.
    public static var recentAuthentication: Int { 300 }

    /// ``profile(accessToken:)`` for what needs a recent authentication: the token's
    /// `auth_time` (a login by password, code or passkey, or a password change) within
    /// `maxAge` seconds. A token of a refresh carries none: the client logs in again.
    /// - Throws: ``AuthError/invalidToken``, then ``AuthError/insufficientUserAuthentication(maxAge:)``.
    public func recentlyAuthenticatedProfile(accessToken: String, within maxAge: Int = recentAuthentication) async throws -> User {
        let (user, _, authTime) = try await bearer(accessToken)
        guard let authTime, clock.now.timeIntervalSince1970 - TimeInterval(authTime) <= TimeInterval(maxAge) else {
            throw AuthError.insufficientUserAuthentication(maxAge: maxAge)
        }
        return user
    }

    /// Checks an access token as ``profile(accessToken:)`` does, without reading storage:
    /// it verifies and names a user. What a route checks before it reads a request's body,
    /// reading the account only once the body is in.
    /// - Throws: ``AuthError/invalidToken``.
    public func checkAccessToken(_ accessToken: String) throws {
        guard try issuer.verify(accessToken).userID != nil else { throw AuthError.invalidToken }
    }

    /// ``profile(accessToken:)`` with the account read at most once per ``accounts``'
    /// lifetime: what `GET /me` answers. Routes that act on the account (a password check,
    /// a deletion) read it afresh.
    /// - Throws: ``AuthError/invalidToken``, `service_unavailable`.
    public func recentProfile(accessToken: String) async throws -> User {
        try await bearer(accessToken, recent: true, stale: true).user
    }

    /// The live sessions of the access token's account, newest first, and which of them
    /// the token was issued in.
    /// - Throws: ``AuthError/invalidToken``, `service_unavailable`.
    ///
    /// ```swift
    /// let (sessions, current) = try await service.sessions(accessToken: token)
    /// ```
    public func sessions(accessToken: String) async throws -> (sessions: [Session], current: UUID?) {
        let (user, current, _) = try await bearer(accessToken, stale: true)
        return (try await (storage.staleReads ?? storage).refreshTokens.sessions(ofUser: user.id, now: clock.now), current)
    }

    /// Ends the session `id` of the access token's account: its refresh token stops working
    /// (access tokens already issued in it run out within their lifetime).
    /// - Throws: `not_found` when the account has no such live session, ``AuthError/invalidToken``.
    public func endSession(_ id: UUID, accessToken: String, origin: RequestOrigin) async throws {
        let (user, _, _) = try await bearer(accessToken)
        guard try await storage.refreshTokens.revokeSession(id, ofUser: user.id, now: clock.now) else {
            throw AuthError.notFound("no session \(id.uuidString.lowercased())")
        }
        try await recordEnded(1, of: user, origin: origin)
    }

    /// Ends every session of the access token's account but the one the token was issued
    /// in, or every one with `all`; returns how many.
    /// - Throws: ``AuthError/invalidToken``, `service_unavailable`.
    @discardableResult
    public func endSessions(accessToken: String, all: Bool, origin: RequestOrigin) async throws -> Int {
        let (user, current, _) = try await bearer(accessToken)
        let ended: Int
        if !all, let current {
            ended = try await storage.refreshTokens.revokeAll(ofUser: user.id, except: current, now: clock.now)
        } else {
            ended = try await storage.refreshTokens.revokeAll(ofUser: user.id, now: clock.now)
        }
        if ended > 0 { try await recordEnded(ended, of: user, origin: origin) }
        return ended
    }

    /// The account and session of a verified access token.
    /// Only a token issued to authd's own login routes names a user: a relying party's
    /// `client_credentials` token is refused by its `client_id`, whatever its `sub` looks like.
    /// The session is checked too: a token issued in a session that has ended (a logout, a
    /// session ended by its owner or an operator, a password set) is refused, here at once
    /// and on another instance within ``accounts``' lifetime.
    /// With `stale`, for routes that only show, a read replica may confirm the account and
    /// session (``AuthStorage/readConfirming(_:)``).
    private func bearer(_ accessToken: String, recent: Bool = false, stale: Bool = false) async throws -> (
        user: User, session: UUID?, authTime: Int?
    ) {
        let claims = try issuer.verify(accessToken)
        guard let id = claims.userID else { throw AuthError.invalidToken }
        let session = claims.sid.flatMap(UUID.init(uuidString:))
        let now = clock.now
        let readOn = { (storage: Storage) async throws -> User? in
            guard let session else { return try await storage.users.user(withID: id) }
            return try await storage.user(withID: id, inSession: session, now: now)
        }
        let read = { () async throws -> User? in
            guard stale else { return try await readOn(storage) }
            return try await storage.readConfirming { try await readOn($0).flatMap { $0.isDisabled ? nil : $0 } }
        }
        guard let user = try await (recent ? accounts.user(id, session: session, read: read) : read()), !user.isDisabled else {
            throw AuthError.invalidToken
        }
        return (user, session, claims.authTime)
    }

    private func recordEnded(_ count: Int, of user: User, origin: RequestOrigin) async throws {
        accounts.forget(user.id)
        try await storage.audit.record(
            SecurityEvent(
                kind: .sessionsRevoked, at: clock.now, userID: user.id, usernameKey: user.usernameKey, origin: origin,
                detail: "by its owner: \(count) \(count == 1 ? "session" : "sessions")"
            )
        )
    }

    /// Refresh tokens are 43 characters; anything empty or absurdly long is refused before
    /// any storage is asked.
    private static func validatePresented(_ token: String) throws {
        guard !token.isEmpty else { throw AuthError.invalidRequest("refresh_token must not be empty") }
        guard token.utf8.count <= 512 else { throw AuthError.invalidToken }
    }
}
