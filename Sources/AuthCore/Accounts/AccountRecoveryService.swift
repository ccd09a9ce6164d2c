import Foundation

/// How long the tokens sent out of band work.
///
/// ```swift
/// var lifetimes = RecoveryLifetimes()
/// lifetimes.passwordReset = 900   // a quarter of an hour
/// ```
public struct RecoveryLifetimes: Sendable, Equatable {
    /// A password-reset token, seconds (30 minutes).
    public var passwordReset: TimeInterval = 1_800
    /// An email-verification token (and an email change's), seconds (24 hours).
    public var emailVerification: TimeInterval = 86_400
    /// An email sign-in code (and its link), seconds (10 minutes).
    public var emailSignIn: TimeInterval = 600

    /// The defaults.
    public init() {}

    /// The lifetime of a token for `purpose`.
    public func lifetime(of purpose: AccountTokenPurpose) -> TimeInterval {
        switch purpose {
        case .passwordReset: passwordReset
        case .emailVerification, .emailChange: emailVerification
        case .emailSignIn: emailSignIn
        }
    }
}

/// Password reset and email verification by tokens sent out of band: each request issues a
/// single-use token (stored as its digest) and queues its message in the outbox in one
/// write; ``DeliveryService`` sends it. A reset request answers the same way, in the same
/// time, whether or not the account exists: the answer waits only for the checks and the
/// limits, the same for any name, and the token's work comes after it; only the message
/// reveals anything — to the address the account holds.
///
/// ```swift
/// let recovery = AccountRecoveryService(storage: storage, hashing: hashing, passwords: screen, throttle: policy,
///                                       sealer: DeliverySealer(keyEncryptionKey: kek), wake: wake)
/// try await recovery.requestPasswordReset(username: "alice", email: nil, origin: origin)
/// // … the mailer receives {"kind":"password_reset","token":…} …
/// try await recovery.resetPassword(token: token, newPassword: "a new long passphrase", origin: origin)
/// ```
public struct AccountRecoveryService<Storage: AuthStorage>: Sendable {
    /// Tokens, outbox, audit and counters.
    public let storage: Storage
    /// Where new passwords are hashed.
    public let hashing: PasswordHashing
    /// The policy a new password passes.
    public let passwords: PasswordScreen
    /// The recovery limits per address and per target (and the counters' digest key).
    public let throttle: ThrottlePolicy
    /// Seals tokens for the outbox.
    public let sealer: DeliverySealer
    /// Wakes this instance's sender when a message is queued.
    public let wake: DeliveryWake
    /// Token lifetimes.
    public let lifetimes: RecoveryLifetimes
    /// The time source.
    public let clock: any WallClock
    /// Where requests are counted.
    public let metrics: AuthMetrics

    /// Creates the service.
    public init(
        storage: Storage, hashing: PasswordHashing, passwords: PasswordScreen = PasswordScreen(),
        throttle: ThrottlePolicy = ThrottlePolicy(),
        sealer: DeliverySealer, wake: DeliveryWake = DeliveryWake(), lifetimes: RecoveryLifetimes = RecoveryLifetimes(),
        clock: any WallClock = SystemClock(), metrics: AuthMetrics = AuthMetrics()
    ) {
        self.storage = storage
        self.hashing = hashing
        self.passwords = passwords
        self.throttle = throttle
        self.sealer = sealer
        self.wake = wake
        self.lifetimes = lifetimes
        self.clock = clock
        self.metrics = metrics
    }

    /// Asks for a password reset of the account named by `username` or by `email` (exactly
    /// one): ``acceptPasswordReset(username:email:origin:)``, then ``issue(_:)``.
    /// - Throws: as those do.
    public func requestPasswordReset(username: String?, email: String?, origin: RequestOrigin) async throws {
        try await issue(try await acceptPasswordReset(username: username, email: email, origin: origin))
    }

    /// A reset request accepted: checked and counted, its work still to do.
    public struct AcceptedReset: Sendable {
        let account: AccountSelector
        let origin: RequestOrigin
    }

    /// What a reset request's answer waits for, the same whether or not an account answers to
    /// the name: the request checked and reserved against the address's and the target's
    /// limits. The rest — the token, its message, the audit event — is ``issue(_:)``, which
    /// the route runs after answering, so that neither its time nor its writes can tell an
    /// existing account from another name.
    /// - Throws: `invalid_request` (neither or both given, or malformed), `too_many_attempts`
    ///   (past the address's or the target's limit, whether or not the account exists),
    ///   `service_unavailable`.
    public func acceptPasswordReset(username: String?, email: String?, origin: RequestOrigin) async throws -> AcceptedReset {
        let account: AccountSelector
        let target: String
        switch (username, email) {
        case (let name?, nil):
            let parsed = try Username(name)
            (account, target) = (.username(parsed), parsed.key)
        case (nil, let address?):
            let parsed = try EmailAddress(address)
            (account, target) = (.email(parsed), "email:\(parsed.key)")
        default:
            throw AuthError.invalidRequest("give either username or email")
        }
        try await reserve([throttle.recoveryKey(address: origin.clientAddress), throttle.recoveryTargetKey(target)].compactMap { $0 })
        return AcceptedReset(account: account, origin: origin)
    }

    /// The work of an accepted reset request: when an enabled account answers to it, a reset
    /// token is issued and its message queued; either way one audit event (naming the account
    /// only when there is one), and the sender woken once both are written.
    public func issue(_ accepted: AcceptedReset) async throws {
        let user = try await issue(.passwordReset, for: accepted.account, wake: false)
        // Recorded whether or not an account answered; it names the account only when there
        // is one (what was typed for none is not kept).
        try await storage.audit.record(
            SecurityEvent(
                kind: .passwordResetRequested, at: clock.now, userID: user?.id, usernameKey: user?.usernameKey, origin: accepted.origin)
        )
        if user != nil { wake.signal() }
        metrics.recovery(result: "reset_requested")
    }

    /// Sets a new password with a reset token: the token is used up (and the account's other
    /// reset tokens with it), every session of the account ends, and the username's failed
    /// logins are forgotten, from every address and from the one the reset was confirmed
    /// from. A disabled account stays disabled.
    /// - Returns: the account.
    /// - Throws: `invalid_token` (unknown, used or expired), `weak_password` (the token stays
    ///   usable), `invalid_request`, `too_many_attempts`, `service_unavailable`.
    @discardableResult
    public func resetPassword(token: String, newPassword: String, origin: RequestOrigin) async throws -> User {
        try await reserve([throttle.recoveryKey(address: origin.clientAddress)].compactMap { $0 })
        let digest = OpaqueToken.hash(of: token)
        // Checked before hashing, so a guessed token costs no hash.
        guard try await storage.accountTokens.owner(ofTokenHash: digest, purpose: .passwordReset, now: clock.now) != nil else {
            throw invalidToken()
        }
        let phc = try await hashing.hash(newPassword, screenedBy: passwords)
        guard let (user, revoked) = try await storage.accountTokens.resetPassword(tokenHash: digest, passwordHash: phc, now: clock.now)
        else {
            throw invalidToken()
        }
        // The username's lockout ends, everywhere and at the address the reset was confirmed
        // from (the owner's, who proved the mailbox): what a right password clears.
        let usernameKey = user.usernameKey
        try await storage.loginAttempts.release(
            [], clearing: throttle.keys(usernameKey: usernameKey, address: origin.clientAddress).clearedByPassword)
        try await storage.audit.record(
            SecurityEvent(
                kind: .passwordReset, at: clock.now, userID: user.id, usernameKey: usernameKey, origin: origin,
                detail: "\(revoked) \(revoked == 1 ? "session" : "sessions") ended"
            )
        )
        metrics.recovery(result: "reset")
        return user
    }

    /// The account a token of one of `purposes` acts on, nil when the token is unknown, used
    /// or expired: what a page shows before the token is used. Nothing is used up or
    /// counted (a token is 256 random bits: looking it up tells a guesser nothing).
    public func holder(of token: String, purposes: Set<AccountTokenPurpose>) async throws -> User? {
        try await storage.holder(ofToken: token, purposes: purposes, now: clock.now)
    }

    /// Queues a verification message to `user`'s email address (after a sign-up with one);
    /// nothing when the account has none.
    public func requestEmailVerification(for user: User, origin: RequestOrigin) async throws {
        guard user.email != nil, try await issue(.emailVerification, for: .id(user.id)) != nil else { return }
        metrics.recovery(result: "verification_requested")
    }

    /// Marks the address a verification token was sent to as the account's own, or, with an
    /// email-change token, makes the new address it was sent to the account's (verified).
    /// - Returns: the account.
    /// - Throws: `invalid_token` (unknown, used, expired, the account's address has changed
    ///   since a verification was sent, or another account has a change's address),
    ///   `too_many_attempts`, `service_unavailable`.
    @discardableResult
    public func verifyEmail(token: String, origin: RequestOrigin) async throws -> User {
        try await reserve([throttle.recoveryKey(address: origin.clientAddress)].compactMap { $0 })
        guard let (user, changed) = try await storage.accountTokens.verifyEmail(tokenHash: OpaqueToken.hash(of: token), now: clock.now)
        else {
            throw invalidToken()
        }
        try await storage.audit.record(
            SecurityEvent(kind: changed ? .emailChanged : .emailVerified, at: clock.now, userID: user.id, origin: origin))
        metrics.recovery(result: changed ? "email_changed" : "verified")
        return user
    }

    /// The owner asks to change the account's address to `email` (after a recent
    /// authentication, which the route checks): a token that proves the new address is sent
    /// to it, and the address the account has now is told (`email_change_requested`), so a
    /// thief of a session cannot move the account's mail away unseen. The address changes
    /// only when the token comes back (``verifyEmail(token:origin:)``); a password set
    /// before that voids it. When another account has the address, its holder gets an
    /// `account_already_exists` notice instead and the answer is the same. Counted against
    /// the client address's and the new address's recovery limits.
    /// - Throws: `invalid_request` (not an address), `too_many_attempts`, `service_unavailable`.
    public func requestEmailChange(for user: User, to email: String, origin: RequestOrigin) async throws {
        let address = try EmailAddress(email)
        try await reserve(
            [throttle.recoveryKey(address: origin.clientAddress), throttle.recoveryTargetKey("email:\(address.key)")].compactMap { $0 })
        // Its own address again: nothing to change, and nothing to tell.
        if let current = user.email, (try? EmailAddress(current))?.key == address.key { return }
        let issued = try await issue(.emailChange, for: .id(user.id), address: address, wake: false) != nil
        let notices = OwnerNotices(storage: storage, wake: wake, clock: clock)
        if !issued { try await notices.notify(.accountAlreadyExists, account: .email(address)) }
        if user.email != nil { try await notices.notify(.emailChangeRequested, account: .id(user.id)) }
        try await storage.audit.record(
            SecurityEvent(
                kind: .emailChangeRequested, at: clock.now, userID: user.id, usernameKey: user.usernameKey, origin: origin,
                detail: issued ? "token sent to the new address" : "the new address is another account's"
            )
        )
        wake.signal()
        metrics.recovery(result: "email_change_requested")
    }

    /// Issues a token for `account` (proving `address`, when given, instead of the account's
    /// own) with its message, and wakes the sender (unless `wake` is false: the caller does
    /// once it has written what goes with it).
    @discardableResult
    private func issue(_ purpose: AccountTokenPurpose, for account: AccountSelector, address: EmailAddress? = nil, wake: Bool = true)
        async throws -> User?
    {
        let fresh = OpaqueToken.generate()
        let now = clock.now
        let issued = try await storage.accountTokens.issue(
            AccountTokenIssue(
                purpose: purpose, account: account, tokenHash: fresh.hash, sealedToken: try sealer.seal(fresh.token, purpose: purpose),
                createdAt: now, expiresAt: now.addingTimeInterval(lifetimes.lifetime(of: purpose)), address: address
            )
        )
        if wake, issued != nil { self.wake.signal() }
        return issued
    }

    private func reserve(_ keys: [ThrottleKey]) async throws {
        guard !keys.isEmpty, let refusal = try await storage.loginAttempts.reserve(keys, now: clock.now) else { return }
        metrics.recovery(result: "too_many_attempts")
        throw AuthError.tooManyRecoveries(retryAfter: refusal.retryAfter)
    }

    private func invalidToken() -> AuthError {
        metrics.recovery(result: "invalid_token")
        return AuthError.invalidToken
    }
}
