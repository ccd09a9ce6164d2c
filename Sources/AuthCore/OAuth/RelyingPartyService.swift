import Foundation

/// What relying parties ask of authd, as the OAuth RFCs say: client authentication
/// (RFC 6749 §2.3), introspection (RFC 7662), revocation (RFC 7009) and the token endpoint's
/// `refresh_token` and `client_credentials` grants (RFC 6749 §6, §4.4).
///
/// Rules: introspection vouches only for a token that verifies now *and* whose account is
/// enabled and whose session is live (an access token is cut off by logout, revocation or
/// disabling, for servers that introspect), or whose client is still registered and did not
/// revoke it. Revocation ends the session of a refresh token, or of an access token that names
/// one, and marks a client's own token revoked; an unknown token is not an error.
///
/// ```swift
/// let parties = RelyingPartyService(sessions: sessions)
/// let client = try await parties.authenticate(clientID: "orders-api", secret: secret)
/// let answer = try await parties.introspect(accessToken, by: client)
/// try await parties.revoke(refreshToken, by: client, origin: origin)
/// ```
public struct RelyingPartyService<Storage: AuthStorage>: Sendable {
    /// Sessions: rotation, and the storage, issuer and clock they share.
    public let sessions: SessionService<Storage>
    /// The limits client authentication is held to (``ThrottlePolicy/clientKeys(clientID:address:)``).
    public let throttle: ThrottlePolicy

    /// Creates the service.
    public init(sessions: SessionService<Storage>, throttle: ThrottlePolicy = ThrottlePolicy()) {
        self.sessions = sessions
        self.throttle = throttle
    }

    private var storage: Storage { sessions.storage }
    private var issuer: AccessTokenIssuer { sessions.issuer }

    /// The registered client with this id and secret.
    ///
    /// Each attempt is reserved first, as a login's is, against the client id (from one
    /// address, and from every address with windows that grow) and the address: a secret
    /// cannot be guessed faster than a password. A success clears the id's counters and gives
    /// the address its attempt back.
    /// - Throws: ``AuthError/invalidClient`` for an unknown id or a wrong secret alike;
    ///   `too_many_attempts` past the limits.
    public func authenticate(clientID: String, secret: String, origin: RequestOrigin) async throws -> OAuthClient {
        let keys = throttle.clientKeys(clientID: clientID, address: origin.clientAddress)
        if let refusal = try await storage.loginAttempts.reserve(keys.all, now: sessions.clock.now) {
            sessions.metrics.throttled()
            throw AuthError.tooManyAttempts(retryAfter: refusal.retryAfter)
        }
        // An id no client can have (too long, a NUL PostgreSQL cannot hold) is not looked up.
        let client = (try? OAuthClient.validate(id: clientID)) != nil ? try await storage.clients.client(id: clientID) : nil
        let matches = (client ?? OAuthClient.absent).verifies(secret: secret)
        guard let client, matches else { throw AuthError.invalidClient }
        try await storage.loginAttempts.release(keys.releasedBySuccess, clearing: keys.clearedByPassword)
        return client
    }

    /// What `token` is, asked by `client`: an access token (a compact JWS) or a refresh
    /// token, whatever a `token_type_hint` said (RFC 7662 §2.1 lets the server look further).
    /// Only a token meant for the client (``OAuthClient/isMeant(for:)``) is vouched for; any
    /// other, and a refresh token (meant for authd alone) unless the client is a trusted
    /// introspector, is `{"active": false}`, as an unknown one is (RFC 7662 §4: no token
    /// scanning).
    public func introspect(_ token: String, by client: OAuthClient) async throws -> TokenIntrospection {
        switch Presented(token) {
        case .accessToken?: try await introspectAccessToken(token, by: client)
        case .refreshToken? where client.trustedIntrospector: try await introspectRefreshToken(token)
        case .refreshToken?, nil: .inactive
        }
    }

    /// What a presented token looks like: a compact JWS is an access token, anything else a
    /// refresh token; nil for nothing or a size no token of authd's has.
    private enum Presented {
        case accessToken, refreshToken

        init?(_ token: String) {
            guard !token.isEmpty, token.utf8.count <= 4096 else { return nil }
            self = token.contains(".") ? .accessToken : .refreshToken
        }
    }

    private func introspectAccessToken(_ token: String, by client: OAuthClient) async throws -> TokenIntrospection {
        guard let claims = try? issuer.verify(token, anyAudience: true), client.isMeant(for: claims) else { return .inactive }
        // Whether the token is live only shows: a read replica may confirm it.
        return try await storage.readConfirming { storage in
            let answer = try await introspect(claims, on: storage)
            return answer.active ? answer : nil
        } ?? .inactive
    }

    /// What `storage` says of the access token whose verified claims are `claims`.
    private func introspect(_ claims: AccessTokenClaims, on storage: Storage) async throws -> TokenIntrospection {
        var answer = TokenIntrospection(
            active: true, sub: claims.sub, exp: claims.exp, iat: claims.iat, iss: claims.iss, aud: claims.aud, tokenType: "Bearer",
            clientID: claims.clientID, jti: claims.jti, sid: claims.sid
        )
        if let userID = claims.userID {
            guard let user = try await storage.users.user(withID: userID), !user.isDisabled else { return .inactive }
            if let sid = claims.sid {
                guard let session = UUID(uuidString: sid), try await storage.refreshTokens.isSessionLive(session, now: sessions.clock.now)
                else {
                    return .inactive
                }
            }
            answer.username = user.username
            return answer
        }
        // A relying party's own token: live while the client is registered and until it revokes it.
        guard let clientID = claims.clientID, clientID == claims.sub, try await storage.clients.client(id: clientID) != nil,
            !(try await storage.clients.isTokenRevoked(jti: claims.jti))
        else {
            return .inactive
        }
        return answer
    }

    private func introspectRefreshToken(_ token: String) async throws -> TokenIntrospection {
        guard let status = try await storage.refreshTokens.status(ofTokenHash: RefreshToken.hash(of: token), now: sessions.clock.now),
            status.isLive,
            let user = try await storage.users.user(withID: status.userID), !user.isDisabled
        else {
            return .inactive
        }
        return TokenIntrospection(
            active: true, sub: status.userID.uuidString.lowercased(), username: user.username,
            exp: Int(status.expiresAt.timeIntervalSince1970), iat: Int(status.issuedAt.timeIntervalSince1970), iss: issuer.issuer,
            tokenType: TokenIntrospection.refreshTokenType, clientID: OAuthClient.firstPartyID,
            sid: status.sessionID.uuidString.lowercased()
        )
    }

    /// Ends the session `token` belongs to: a refresh token's family, or the session an
    /// access token was issued in (its `sid`), if the token is meant for `client` (as for
    /// ``introspect(_:by:)``: a refresh token only for a trusted introspector). Unknown,
    /// expired, foreign and other clients' tokens change nothing and are not an error
    /// (RFC 7009 §2.2: the answer tells no one which tokens exist); a relying party's own
    /// `client_credentials` token is answered inactive by introspection from then on (it
    /// still verifies at a server that checks only its signature, until it expires).
    public func revoke(_ token: String, by client: OAuthClient, origin: RequestOrigin) async throws {
        guard let presented = Presented(token) else { return }
        let now = sessions.clock.now
        let owner: UUID?
        switch presented {
        case .accessToken:
            guard let claims = try? issuer.verify(token, anyAudience: true), client.isMeant(for: claims) else { return }
            if claims.userID == nil, let clientID = claims.clientID, clientID == claims.sub {
                // A relying party's own token (client_credentials): introspection answers it inactive from now on.
                try await storage.clients.revokeToken(
                    jti: claims.jti, of: clientID, expiresAt: Date(timeIntervalSince1970: TimeInterval(claims.exp)))
                try await storage.audit.record(
                    SecurityEvent(kind: .clientTokenRevoked, at: now, origin: origin, detail: client.id))
                return
            }
            guard let userID = claims.userID, let session = claims.sid.flatMap(UUID.init(uuidString:)),
                try await storage.refreshTokens.revokeSession(session, ofUser: userID, now: now)
            else { return }
            owner = userID
        case .refreshToken:
            guard client.trustedIntrospector else { return }
            owner = try await storage.refreshTokens.revokeFamily(ofTokenHash: RefreshToken.hash(of: token), now: now)
        }
        if let owner {
            sessions.accounts.forget(owner)
            try await storage.audit.record(
                SecurityEvent(kind: .sessionsRevoked, at: now, userID: owner, origin: origin, detail: "by relying party \(client.id)")
            )
        }
    }

    /// A token of `client`'s own (`client_credentials`): `sub` and `client_id` its id, `aud`
    /// its audiences, no refresh token and no session.
    public func clientToken(for client: OAuthClient, origin: RequestOrigin) async throws -> AccessTokenIssuer.Issued {
        let issued = try issuer.issue(subject: client.id, clientID: client.id, audiences: client.tokenAudiences)
        try await storage.audit.record(SecurityEvent(kind: .clientTokenIssued, at: sessions.clock.now, origin: origin, detail: client.id))
        return issued
    }

    /// The `refresh_token` grant: ``SessionService/refresh(refreshToken:origin:)``, with a
    /// refused token reported as ``AuthError/invalidGrant`` (RFC 6749 §5.2).
    public func refresh(refreshToken: String, origin: RequestOrigin) async throws -> TokenGrant {
        do {
            return try await sessions.refresh(refreshToken: refreshToken, origin: origin)
        } catch let error as AuthError where error.code == .invalidToken {
            throw AuthError.invalidGrant
        }
    }
}
