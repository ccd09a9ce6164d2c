import Foundation

/// Passwordless sign-in by a code sent to the account's verified email address, through the
/// deliveries: a request issues a single-use token (stored as its digest) and queues its
/// message, which carries the token, a link to authd's page for it, and a 6-digit code
/// derived from it (``DeliverySealer/code(forTokenHash:)``). Either signs in once, within
/// ``lifetime``; a code allows ``maxFailures`` wrong tries, checked under the token's row lock
/// so that concurrent guesses are each counted; a new request ends the earlier code.
///
/// A request answers the same, after the same work, for an address no account has, an
/// unverified one, and a verified one: it is reserved against the client address's and the
/// target address's recovery limits first, and ``issue(_:)`` (the token, its message and
/// the audit event) runs after the answer. A code or token is reserved against the client
/// address's login limit before it is checked. What the code proves is the mailbox, one
/// factor: an account with a second factor on is asked for it (`mfa_required`).
///
/// ```swift
/// let email = EmailSignIn(login: login, sealer: DeliverySealer(keyEncryptionKey: kek), wake: wake)
/// try await email.issue(try await email.accept(email: "alice@example.com", origin: origin))
/// // … the mailer receives {"kind":"email_sign_in","code":"042917","token":…} …
/// let grant = try await email.signIn(email: "alice@example.com", code: "042917", origin: origin)
/// ```
public struct EmailSignIn<Storage: AuthStorage>: Sendable {
    /// The login rules: throttling, sessions, second factors, the audit log.
    public let login: LoginService<Storage>
    /// Seals tokens for the outbox and derives their codes.
    public let sealer: DeliverySealer
    /// Wakes this instance's sender when a message is queued.
    public let wake: DeliveryWake
    /// How long a code and its link work, seconds (10 minutes).
    public let lifetime: TimeInterval
    /// Wrong codes a token allows; the last uses it up.
    public static var maxFailures: Int { 5 }
    /// RFC 8176 has no method for a code sent by email: it is a one-time password.
    public static var methods: [String] { ["otp"] }
    private var storage: Storage { login.storage }

    /// Creates the service.
    public init(login: LoginService<Storage>, sealer: DeliverySealer, wake: DeliveryWake = DeliveryWake(), lifetime: TimeInterval = 600) {
        self.login = login
        self.sealer = sealer
        self.wake = wake
        self.lifetime = lifetime
    }

    /// A request accepted: checked and counted, its work still to do.
    public struct Accepted: Sendable {
        let address: EmailAddress
        let origin: RequestOrigin
    }

    /// What a request's answer waits for, the same for any address: the address parsed and
    /// the request reserved against the client address's and the target address's limits.
    /// - Throws: `invalid_request` (not an address), `too_many_attempts`, `service_unavailable`.
    public func accept(email: String, origin: RequestOrigin) async throws -> Accepted {
        let address = try EmailAddress(email)
        let keys = [login.throttle.recoveryKey(address: origin.clientAddress), login.throttle.recoveryTargetKey("sign-in:\(address.key)")]
        if let refusal = try await storage.loginAttempts.reserve(keys.compactMap { $0 }, now: login.clock.now) {
            login.metrics.login(result: "too_many_attempts")
            throw AuthError.tooManyRecoveries(retryAfter: refusal.retryAfter)
        }
        return Accepted(address: address, origin: origin)
    }

    /// The work of an accepted request: when an enabled account has the address, verified, a
    /// token is issued (ending the account's earlier one) and its message queued; either way
    /// one audit event, naming the account only when there is one.
    public func issue(_ accepted: Accepted) async throws {
        let fresh = OpaqueToken.generate()
        let now = login.clock.now
        let user = try await storage.accountTokens.issue(
            AccountTokenIssue(
                purpose: .emailSignIn, account: .email(accepted.address), tokenHash: fresh.hash,
                sealedToken: try sealer.seal(fresh.token, purpose: .emailSignIn), createdAt: now,
                expiresAt: now.addingTimeInterval(lifetime)
            ))
        try await storage.audit.record(
            SecurityEvent(kind: .emailSignInRequested, at: now, userID: user?.id, usernameKey: user?.usernameKey, origin: accepted.origin))
        if user != nil { wake.signal() }
    }

    /// Signs in with the code sent to `email`.
    /// - Throws: ``AuthError`` — `invalid_request` (not an address, not six digits),
    ///   `invalid_credentials` (no live code for the address, or a wrong one), `mfa_required`,
    ///   `account_disabled`, `too_many_attempts`, `service_unavailable`.
    public func signIn(email: String, code: String, origin: RequestOrigin) async throws -> TokenGrant {
        try await login.counted {
            let address = try EmailAddress(email)
            guard code.utf8.count == 6, code.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
                throw AuthError.invalidRequest("code must be the 6 digits sent")
            }
            try await login.reserveAddress(for: nil, origin: origin, detail: "email_code")
            let sealer = self.sealer
            let outcome = try await storage.accountTokens.useSignInCode(
                emailKey: address.key, now: login.clock.now, maxFailures: Self.maxFailures,
                matches: { sealer.codeMatches(code, tokenHash: $0) })
            switch outcome {
            case .signedIn(let user):
                return try await login.finishFirstFactor(of: user, origin: origin, detail: "email_code", methods: Self.methods)
            case .wrong(let user, let left):
                try await login.audit(
                    .loginFailed, user: user, usernameKey: user.usernameKey, origin: origin,
                    detail: left == 0 ? "email_code_used_up" : "email_code")
                throw AuthError.invalidCredentials
            case .noCode:
                throw AuthError.invalidCredentials
            }
        }
    }

    /// Signs in with the token a sign-in message carries (what its link holds).
    /// - Throws: ``AuthError`` — `invalid_token` (unknown, used or expired, or the address
    ///   changed since), `mfa_required`, `account_disabled`, `too_many_attempts`,
    ///   `service_unavailable`.
    public func signIn(token: String, origin: RequestOrigin) async throws -> TokenGrant {
        try await login.counted {
            try await login.reserveAddress(for: nil, origin: origin, detail: "email_link")
            guard let user = try await storage.accountTokens.useSignInToken(tokenHash: OpaqueToken.hash(of: token), now: login.clock.now)
            else {
                throw AuthError.invalidToken
            }
            return try await login.finishFirstFactor(of: user, origin: origin, detail: "email_link", methods: Self.methods)
        }
    }

    /// The account a sign-in token would sign in, nil when it no longer works: what the
    /// link's page shows before it is used. Nothing is used up or counted.
    public func holder(of token: String) async throws -> User? {
        try await storage.holder(ofToken: token, purposes: [.emailSignIn], now: login.clock.now)
    }
}
