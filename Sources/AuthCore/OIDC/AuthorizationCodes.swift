import Foundation

/// The codes `/authorize` gives and `POST /oauth/token` redeems (RFC 6749 §4.1, RFC 7636):
/// random, stored hashed, good once for ``AuthorizationCode/lifetime``, and redeemed only
/// by the client they were given to, with the same redirect URI and the PKCE verifier of the
/// challenge. A code presented a second time is refused, and the session its first
/// redemption started ends (RFC 6749 §4.1.2).
///
/// ```swift
/// let codes = AuthorizationCodes(storage: storage)
/// let code = try await codes.issue(for: request, userID: user.id, authTime: now, methods: ["pwd"])
/// let grant = try await codes.redeem(code, clientID: "phone-app", redirectURI: uri, verifier: verifier)
/// ```
public struct AuthorizationCodes<Storage: AuthStorage>: Sendable {
    public let storage: Storage
    public let clock: any WallClock

    public init(storage: Storage, clock: any WallClock = SystemClock()) {
        self.storage = storage
        self.clock = clock
    }

    /// A new code for `request`, whose user `userID` signed in at `authTime` by `methods`, in
    /// the browser session `browserSession`.
    /// - Returns: the code, to send to the client once.
    public func issue(
        for request: AuthorizationRequest, userID: UUID, authTime: Date, methods: [String], browserSession: UUID? = nil
    ) async throws -> String {
        let (code, hash) = OpaqueToken.generate()
        try await storage.authorizationCodes.add(
            AuthorizationCode(
                codeHash: hash, clientID: request.client.id, userID: userID, redirectURI: request.redirectURI, scopes: request.scopes,
                nonce: request.nonce, codeChallenge: request.codeChallenge, authTime: authTime, methods: methods,
                expiresAt: clock.now.addingTimeInterval(AuthorizationCode.lifetime), browserSession: browserSession))
        return code
    }

    /// Redeems `code` for `clientID` (authenticated already, or public). The code is used up
    /// whatever the answer, so a code that leaked is dead after one try.
    /// - Throws: `invalid_grant` for an unknown, used or expired code, another client's, another
    ///   redirect URI, or a PKCE verifier that is wrong, missing, or sent for a code without a
    ///   challenge (RFC 9700 §2.1.1); `service_unavailable`.
    public func redeem(_ code: String, clientID: String, redirectURI: String?, verifier: String?) async throws -> AuthorizationCode {
        let now = clock.now
        switch try await storage.authorizationCodes.redeem(codeHash: OpaqueToken.hash(of: code), now: now) {
        case .unknown:
            throw AuthError.invalidGrant
        case .replayed(let sessionID, let userID):
            if let sessionID { _ = try await storage.refreshTokens.revokeSession(sessionID, ofUser: userID, now: now) }
            throw AuthError.invalidGrant
        case .redeemed(let found):
            guard found.expiresAt > now, found.clientID == clientID, redirectURI == found.redirectURI else { throw AuthError.invalidGrant }
            switch (found.codeChallenge, verifier) {
            case (let challenge?, let verifier?):
                guard AuthorizationCode.verifier(verifier, answers: challenge) else { throw AuthError.invalidGrant }
            case (nil, nil):
                break
            default:
                throw AuthError.invalidGrant
            }
            return found
        }
    }

    /// Records that redeeming the code of `codeHash` started `session`, which a replay ends.
    public func attach(session: UUID, toCodeHash codeHash: String) async throws {
        try await storage.authorizationCodes.attach(session: session, toCodeHash: codeHash)
    }
}
