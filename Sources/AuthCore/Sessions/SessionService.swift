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

    /// Creates the service.
    public init(
        storage: Storage, issuer: AccessTokenIssuer, refreshLifetime: Int,
        clock: any WallClock = SystemClock(), metrics: AuthMetrics = AuthMetrics()
    ) {
        self.storage = storage
        self.issuer = issuer
        self.refreshLifetime = refreshLifetime
        self.clock = clock
        self.metrics = metrics
    }

    /// Exchanges a refresh token for a new pair; the presented token stops working.
    /// - Throws: ``AuthError/invalidToken`` (unknown, expired, revoked, replayed, disabled
    ///   account), `invalid_request`, `service_unavailable`.
    public func refresh(refreshToken: String, origin: RequestOrigin) async throws -> TokenGrant {
        do {
            try Self.validatePresented(refreshToken)
        } catch {
            metrics.refresh(result: "invalid_request")
            throw error
        }
        let next = RefreshToken.generate()
        let now = clock.now
        let successor = RefreshSuccessor(tokenHash: next.hash, expiresAt: now.addingTimeInterval(TimeInterval(refreshLifetime)))
        let outcome: RefreshRotation
        do {
            outcome = try await storage.refreshTokens.rotate(presentedHash: RefreshToken.hash(of: refreshToken), successor: successor, now: now)
        } catch {
            metrics.refresh(result: "error")
            throw error
        }
        metrics.refresh(result: outcome.label)
        switch outcome {
        case .rotated(let userID, let expiresAt):
            let access = try await issuer.issue(subject: userID.uuidString.lowercased())
            try await storage.audit.record(SecurityEvent(kind: .tokenRefreshed, at: now, userID: userID, origin: origin))
            // Near the session's end the successor lives only until then.
            let refreshExpiresIn = max(0, Int(expiresAt.timeIntervalSince(now).rounded(.down)))
            return TokenGrant(accessToken: access.value, expiresIn: access.expiresIn, refreshToken: next.token, refreshExpiresIn: refreshExpiresIn)
        case .reused(let userID):
            metrics.reuseDetected()
            try await storage.audit.record(
                SecurityEvent(kind: .refreshReuseDetected, at: now, userID: userID, origin: origin, detail: "family revoked")
            )
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
            try await storage.audit.record(SecurityEvent(kind: .loggedOut, at: now, userID: userID, origin: origin))
        }
    }

    /// The account an access token was issued to, if the token verifies and the account
    /// exists and is enabled.
    /// - Throws: ``AuthError/invalidToken``, `service_unavailable`.
    public func profile(accessToken: String) async throws -> User {
        let claims = try await issuer.verify(accessToken)
        guard let id = UUID(uuidString: claims.sub), let user = try await storage.users.user(withID: id), !user.isDisabled else {
            throw AuthError.invalidToken
        }
        return user
    }

    /// Refresh tokens are 43 characters; anything empty or absurdly long is refused before
    /// any storage is asked.
    private static func validatePresented(_ token: String) throws {
        guard !token.isEmpty else { throw AuthError.invalidRequest("refresh_token must not be empty") }
        guard token.utf8.count <= 512 else { throw AuthError.invalidToken }
    }
}
