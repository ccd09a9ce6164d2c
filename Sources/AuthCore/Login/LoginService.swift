import Crypto
import Foundation
import Logging

/// The login use case: checks credentials in constant work, throttles attempts, re-hashes
/// outdated hashes and issues a token pair.
///
/// An unknown username costs one Argon2id verification against a dummy hash made with
/// the same parameters, and every failure is answered no sooner than a verification of
/// the strongest hash in storage takes (``FailureTiming``), so an unknown username cannot
/// be told apart from a wrong password, whatever the account's stored parameters.
///
/// ```swift
/// let hashing = PasswordHashing(pool: BlockingWorkPool())
/// let service = try await LoginService.make(storage: storage, issuer: issuer, hashing: hashing, refreshLifetime: 2_592_000, sessionMaxAge: 7_776_000)
/// let grant = try await service.login(username: "alice", password: "…", origin: RequestOrigin(clientAddress: "203.0.113.9"))
/// ```
public struct LoginService<Storage: AuthStorage>: Sendable {
    /// Accounts, refresh tokens and throttling counters.
    public let storage: Storage
    /// Signs access tokens.
    public let issuer: AccessTokenIssuer
    /// Argon2id and the pool it runs on.
    public let hashing: PasswordHashing
    /// Failure limits.
    public let throttle: ThrottlePolicy
    /// Refresh token lifetime in seconds.
    public let refreshLifetime: Int
    /// A session's absolute lifetime in seconds: its refresh tokens stop working then,
    /// however often they were rotated.
    public let sessionMaxAge: Int
    /// The time source.
    public let clock: any WallClock
    /// Where counters and the hash duration go.
    public let metrics: AuthMetrics
    /// What a verification costs per stored parameter set: the floor of every failure.
    public let timing: FailureTiming
    private let dummyHash: String
    private let logger: Logger

    /// Creates the service, computing its dummy hash on the hashing pool.
    public static func make(
        storage: Storage,
        issuer: AccessTokenIssuer,
        hashing: PasswordHashing,
        throttle: ThrottlePolicy = ThrottlePolicy(),
        refreshLifetime: Int,
        sessionMaxAge: Int,
        clock: any WallClock = SystemClock(),
        metrics: AuthMetrics = AuthMetrics(),
        timing: FailureTiming = FailureTiming(),
        logger: Logger = Logger(label: "authd.login")
    ) async throws -> Self {
        let dummyHash = try await hashing.hash(UUID().uuidString)
        timing.record(try await hashing.verify(UUID().uuidString, against: dummyHash).took, for: hashing.hasher.parameters)
        return Self(
            storage: storage, issuer: issuer, hashing: hashing, throttle: throttle, refreshLifetime: refreshLifetime,
            sessionMaxAge: sessionMaxAge, clock: clock, metrics: metrics, timing: timing, dummyHash: dummyHash, logger: logger
        )
    }

    private init(
        storage: Storage, issuer: AccessTokenIssuer, hashing: PasswordHashing, throttle: ThrottlePolicy,
        refreshLifetime: Int, sessionMaxAge: Int, clock: any WallClock, metrics: AuthMetrics, timing: FailureTiming,
        dummyHash: String, logger: Logger
    ) {
        self.storage = storage
        self.issuer = issuer
        self.hashing = hashing
        self.throttle = throttle
        self.refreshLifetime = refreshLifetime
        self.sessionMaxAge = sessionMaxAge
        self.clock = clock
        self.metrics = metrics
        self.timing = timing
        self.dummyHash = dummyHash
        self.logger = logger
    }

    /// Measures a verification with each parameter set stored hashes use that has no
    /// estimate yet, so failures are padded to the slowest before any login meets it.
    /// Run once storage is up (`buildApplication` does, before it listens).
    public func measureStoredHashParameters() async throws {
        let known = hashing.hasher.parameters
        for parameters in try await storage.users.passwordHashParameters() where parameters != known {
            let sample = try await PasswordHashing(hasher: Argon2idHasher(parameters: parameters), pool: hashing.pool).hash(
                UUID().uuidString)
            timing.record(try await hashing.verify(UUID().uuidString, against: sample).took, for: parameters)
        }
    }

    /// Logs in. Every outcome is counted in ``metrics`` and, once the username is valid,
    /// written to the audit log.
    /// - Throws: ``AuthError`` — `invalid_request`, `invalid_credentials`, `account_disabled`,
    ///   `too_many_attempts`, `service_unavailable`.
    public func login(username rawUsername: String, password: String, origin: RequestOrigin) async throws -> TokenGrant {
        try await counted { try await checkedLogin(username: rawUsername, password: password, origin: origin) }
    }

    /// Runs a login attempt (by password, its second step, or a passkey), counting its
    /// outcome in ``metrics``: `success`, the error's code, or `error`.
    func counted(_ attempt: () async throws -> TokenGrant) async throws -> TokenGrant {
        do {
            let grant = try await attempt()
            metrics.login(result: "success")
            return grant
        } catch let error as AuthError {
            metrics.login(result: error.code.rawValue)
            throw error
        } catch {
            metrics.login(result: "error")
            throw error
        }
    }

    /// The end of a login whose every factor was checked elsewhere (a second step, a
    /// passkey): the account's counters cleared (the username's, its re-authentication and
    /// second-factor ones) and the address's attempt given back, and the session, its
    /// token and a `login_succeeded` event with `detail` written in one step, if the account
    /// still has its password hash and is enabled; nil, writing no session, otherwise.
    func finishLogin(of user: User, origin: RequestOrigin, detail: String) async throws -> TokenGrant? {
        var keys = throttle.keys(usernameKey: user.usernameKey, address: origin.clientAddress)
        keys.reauthentication = throttle.reauthenticationKey(userID: user.id)
        keys.secondFactor = throttle.secondFactorKey(userID: user.id)
        let (grant, record) = try await makeGrant(for: user, origin: origin)
        let recorded = try await storage.recordLoginSuccess(
            LoginSuccess(
                throttle: keys, verifiedPasswordHash: user.passwordHash, refreshToken: record,
                event: event(.loginSucceeded, user: user, usernameKey: user.usernameKey, origin: origin, detail: detail)
            ))
        return recorded ? grant : nil
    }

    /// The end of a sign-in whose first factor was checked elsewhere (a provider's ID token,
    /// an emailed code): refused when the account is disabled, the second step when it has a
    /// second factor on (the address's attempt given back, as a right password's is), else
    /// the session, audited with `detail`, its grant naming `methods` (RFC 8176).
    /// - Throws: `account_disabled`, `mfa_required`, `service_unavailable`.
    func finishFirstFactor(of user: User, origin: RequestOrigin, detail: String, methods: [String]) async throws -> TokenGrant {
        guard !user.isDisabled else {
            try await audit(.loginFailed, user: user, usernameKey: user.usernameKey, origin: origin, detail: "account_disabled")
            throw AuthError.accountDisabled
        }
        if try await storage.secondFactors.totpFactor(userID: user.id)?.isConfirmed == true {
            try await storage.loginAttempts.release([throttle.addressKey(origin.clientAddress)].compactMap { $0 }, clearing: [])
            try await secondFactorChallenge(for: user, passwordHash: user.passwordHash, usernameKey: user.usernameKey, origin: origin)
        }
        guard var grant = try await finishLogin(of: user, origin: origin, detail: detail) else { throw AuthError.accountDisabled }
        grant.methods = methods
        return grant
    }

    private func checkedLogin(username rawUsername: String, password: String, origin: RequestOrigin) async throws -> TokenGrant {
        let username = try Username(rawUsername)
        let checked = try await checkPassword(username: username, password: password, origin: origin)
        let user = checked.user
        guard !user.isDisabled else {
            try await audit(.loginFailed, user: user, usernameKey: username.key, origin: origin, detail: "account_disabled")
            throw AuthError.accountDisabled
        }
        if checked.secondFactorRequired {
            try await requireSecondFactor(checked, usernameKey: username.key, origin: origin)
        }
        // The counters cleared, the refresh token and the audit row go in one write, which
        // starts the session only if the password checked is still the account's: a
        // password set (and its revocation of every session) between the check and here
        // is not outrun.
        let (grant, record) = try await makeGrant(for: user, origin: origin)
        var keys = checked.keys
        keys.reauthentication = throttle.reauthenticationKey(userID: user.id)
        let recorded = try await storage.recordLoginSuccess(
            LoginSuccess(
                throttle: keys,
                verifiedPasswordHash: user.passwordHash,
                refreshToken: record,
                event: event(.loginSucceeded, user: user, usernameKey: username.key, origin: origin)
            ))
        guard recorded else {
            try await audit(.loginFailed, user: user, usernameKey: username.key, origin: origin, detail: "password_changed")
            throw AuthError.invalidCredentials
        }
        if checked.verified.typedForm || hashing.needsRehash(user.passwordHash) {
            await rehash(user: user, password: checked.verified.presented)
        }
        return grant
    }

    /// The first step of a login whose account has a second factor on: the password was
    /// right, so the username's counters are cleared (not the second-factor counter) and an
    /// `mfa_token` is issued, bound to the password hash (after a re-hash, the new one).
    private func requireSecondFactor(_ checked: CheckedPassword, usernameKey: String, origin: RequestOrigin) async throws -> Never {
        let user = checked.user
        var passwordHash = user.passwordHash
        if checked.verified.typedForm || hashing.needsRehash(user.passwordHash) {
            passwordHash = await rehash(user: user, password: checked.verified.presented) ?? passwordHash
        }
        try await storage.loginAttempts.release(checked.keys.releasedBySuccess, clearing: checked.keys.clearedByPassword)
        try await secondFactorChallenge(for: user, passwordHash: passwordHash, usernameKey: usernameKey, origin: origin)
    }

    /// Issues the `mfa_token` of a login whose first step (`user`'s password, or a provider's
    /// ID token) passed and whose account has a second factor on, bound to `passwordHash`
    /// (a password set before the second step ends it).
    func secondFactorChallenge(for user: User, passwordHash: String, usernameKey: String, origin: RequestOrigin) async throws -> Never {
        let token = OpaqueToken.generate()
        let now = clock.now
        try await storage.loginChallenges.store(
            LoginChallenge(
                tokenHash: token.hash, kind: .secondFactor, userID: user.id, passwordHash: passwordHash, createdAt: now,
                expiresAt: now.addingTimeInterval(TimeInterval(LoginChallenge.lifetime)),
                attemptsLeft: LoginChallenge.secondFactorAttempts
            ))
        try await audit(.secondFactorRequired, user: user, usernameKey: usernameKey, origin: origin)
        throw AuthError.mfaRequired(token: token.token)
    }

    /// Re-authentication of a signed-in account (before a password change or a deletion):
    /// `password` must be `user`'s. The attempt is reserved first against the account's
    /// re-authentication counter (``ThrottlePolicy/reauthenticationKey(userID:)``), which a
    /// success clears; failures are audited as a login's.
    ///
    /// What it returns is the account as checked: the write the check allows must require
    /// it still to hold (``CheckedAccount``), so that a reset or a disabling that lands while
    /// the request is still being answered wins.
    /// - Throws: ``AuthError`` — `invalid_request`, `invalid_credentials`,
    ///   `too_many_attempts`, `service_unavailable`.
    ///
    /// ```swift
    /// let checked = try await login.confirmPassword(of: user, password: body.currentPassword, origin: origin)
    /// ```
    @discardableResult
    public func confirmPassword(of user: User, password: String, origin: RequestOrigin) async throws -> CheckedAccount {
        try PasswordPolicy.validatePresented(password)
        let usernameKey = user.usernameKey
        let key = throttle.reauthenticationKey(userID: user.id)
        try await reserve([key], for: user, origin: origin, detail: "reauthentication")
        guard try await verify(password, against: user.passwordHash).matches else {
            try await audit(.loginFailed, user: user, usernameKey: usernameKey, origin: origin, detail: "wrong_password")
            throw AuthError.invalidCredentials
        }
        try await storage.loginAttempts.release([], clearing: [key])
        return CheckedAccount(user)
    }

    /// A password that matched the account `username` names.
    private struct CheckedPassword {
        let user: User
        let keys: ThrottleKeys
        let verified: Verification
        let secondFactorRequired: Bool
    }

    /// Reserves the attempt, then checks `password` against the account `username` names
    /// (or a dummy hash), in the same work and time whether or not the account exists.
    private func checkPassword(username: Username, password: String, origin: RequestOrigin) async throws -> CheckedPassword {
        try PasswordPolicy.validatePresented(password)

        // The attempt is counted before the password is checked: a burst of guesses gets
        // no more hashes than the limits allow, however many arrive at once.
        let keys = throttle.keys(usernameKey: username.key, address: origin.clientAddress)
        let lookup = try await storage.loginLookup(usernameKey: username.key, throttle: keys.all, now: clock.now)
        if let refusal = lookup.refusal {
            try await refuseUnlessKnown(refusal, keys: keys, user: lookup.user, usernameKey: username.key, origin: origin)
        }

        let user = lookup.user
        let target = user?.passwordHash ?? dummyHash
        let verified = try await verify(password, against: target)
        guard let user, verified.matches else {
            // As long as the slowest stored hash would have taken: a wrong password for a
            // strongly hashed account and an unknown username answer alike.
            try await timing.pad(after: verified.took, verifications: verified.verifications)
            try await audit(
                .loginFailed, user: user, usernameKey: username.key, origin: origin, detail: user == nil ? "unknown_user" : "wrong_password"
            )
            throw AuthError.invalidCredentials
        }
        return CheckedPassword(user: user, keys: keys, verified: verified, secondFactorRequired: lookup.secondFactorRequired)
    }

    /// What checking a presented password against a PHC string found.
    private struct Verification {
        let matches: Bool
        /// The password as normalised, the form new hashes get.
        let presented: String
        /// Whether it matched the form typed before passwords were normalised.
        let typedForm: Bool
        /// The Argon2id work done: how long, and how many verifications.
        let took: Duration
        let verifications: Int
    }

    /// Checks `password` against `phc` in its normalised form and, when that fails and the
    /// typed form differs, in the typed form (a hash set before passwords were normalised
    /// holds that). Whether the second is tried depends on the password alone, never on
    /// the account, so an unknown username costs the same. Each verification's time is
    /// folded into ``timing`` and the total into the metrics.
    private func verify(_ password: String, against phc: String) async throws -> Verification {
        let presented = PasswordPolicy.normalized(password)
        var (matches, took) = try await hashing.verify(presented, against: phc)
        var verifications = 1
        if let parameters = Argon2idHasher.parameters(of: phc) { timing.record(took, for: parameters) }
        var typedForm = false
        if !matches, !PasswordPolicy.sameScalars(presented, password) {
            let second = try await hashing.verify(password, against: phc)
            (matches, typedForm) = (second.matches, second.matches)
            took += second.took
            verifications += 1
        }
        metrics.hashDuration(took)
        return Verification(matches: matches, presented: presented, typedForm: typedForm, took: took, verifications: verifications)
    }

    /// Reserves an attempt against the client's address alone (a passkey ceremony, a
    /// provider's ID token: each costs a signature check), as ``reserve(_:for:origin:detail:)``.
    func reserveAddress(for user: User?, origin: RequestOrigin, detail: String) async throws {
        try await reserve([throttle.addressKey(origin.clientAddress)].compactMap { $0 }, for: user, origin: origin, detail: detail)
    }

    /// Reserves an attempt against each of `keys` (a re-authentication, a code, a passkey
    /// ceremony; `user` nil when none is known yet), refusing as ``refuse(_:user:usernameKey:origin:detail:)``
    /// does when one is over its limit.
    func reserve(_ keys: [ThrottleKey], for user: User?, origin: RequestOrigin, detail: String) async throws {
        guard !keys.isEmpty, let refusal = try await storage.loginAttempts.reserve(keys, now: clock.now) else { return }
        try await refuse(refusal, user: user, usernameKey: user?.usernameKey ?? "", origin: origin, detail: detail)
    }

    /// A login the username's counters refused, tried again without the username's lockout
    /// from every address when the username logged in from this address before (within
    /// ``ThrottlePolicy/knownAddressLifetime``): a distributed attacker who runs that lockout
    /// up does not lock the owner out where they sign in. The pair's and the address's own
    /// limits still hold. Refuses as ``refuse(_:user:usernameKey:origin:detail:)`` otherwise.
    private func refuseUnlessKnown(_ refusal: ThrottleRefusal, keys: ThrottleKeys, user: User?, usernameKey: String, origin: RequestOrigin)
        async throws
    {
        guard let pair = keys.pair else { try await refuse(refusal, user: user, usernameKey: usernameKey, origin: origin) }
        let now = clock.now
        let since = now.addingTimeInterval(-TimeInterval(ThrottlePolicy.knownAddressLifetime))
        switch try await storage.loginAttempts.reserve([pair] + [keys.address].compactMap { $0 }, ifKnown: pair, since: since, now: now) {
        case .reserved: return
        case .unknown: try await refuse(refusal, user: user, usernameKey: usernameKey, origin: origin)
        case .refused(var own):
            own.isFirst = own.isFirst || refusal.isFirst
            try await refuse(own, user: user, usernameKey: usernameKey, origin: origin)
        }
    }

    /// Answers an attempt throttling refused: counted in the metrics, audited once per
    /// exhausted window (not once per refused try), 429.
    private func refuse(_ refusal: ThrottleRefusal, user: User?, usernameKey: String, origin: RequestOrigin, detail: String? = nil)
        async throws -> Never
    {
        metrics.throttled()
        if refusal.isFirst {
            try await audit(.loginThrottled, user: user, usernameKey: usernameKey, origin: origin, detail: detail)
        }
        throw AuthError.tooManyAttempts(retryAfter: refusal.retryAfter)
    }

    /// Issues a new access token and a new refresh token family for `user`.
    public func issueGrant(for user: User, origin: RequestOrigin = RequestOrigin()) async throws -> TokenGrant {
        let (grant, record) = try await makeGrant(for: user, origin: origin)
        try await storage.refreshTokens.store(record)
        return grant
    }

    /// A new token pair for `user` and the refresh token's record, not yet stored.
    private func makeGrant(for user: User, origin: RequestOrigin) async throws -> (TokenGrant, RefreshTokenRecord) {
        let session = UUID()
        let now = clock.now
        // Every grant made here follows an authentication (a password, a code, a passkey).
        let access = try issuer.issue(subject: user.id.uuidString.lowercased(), sessionID: session, authenticatedAt: now)
        let refresh = RefreshToken.generate()
        let record = RefreshTokenRecord(
            tokenHash: refresh.hash,
            familyID: session,
            userID: user.id,
            expiresAt: now.addingTimeInterval(TimeInterval(refreshLifetime)),
            sessionExpiresAt: now.addingTimeInterval(TimeInterval(sessionMaxAge)),
            origin: origin
        )
        var grant = TokenGrant(
            accessToken: access.value, expiresIn: access.expiresIn, refreshToken: refresh.token,
            refreshExpiresIn: min(refreshLifetime, sessionMaxAge)
        )
        grant.sessionID = session
        grant.userID = user.id
        return (grant, record)
    }

    func audit(_ kind: SecurityEvent.Kind, user: User?, usernameKey: String, origin: RequestOrigin, detail: String? = nil) async throws {
        try await storage.audit.record(event(kind, user: user, usernameKey: usernameKey, origin: origin, detail: detail))
    }

    /// The security event of this login, stamped now.
    /// The event; the username only when it names an account, so that what was typed into
    /// the username box for no account (a password, often) is never stored.
    private func event(_ kind: SecurityEvent.Kind, user: User?, usernameKey: String, origin: RequestOrigin, detail: String? = nil)
        -> SecurityEvent
    {
        SecurityEvent(
            kind: kind, at: clock.now, userID: user?.id, usernameKey: user == nil ? nil : usernameKey, origin: origin, detail: detail)
    }

    /// A re-hash is an improvement, not a condition of the login: failures are logged and
    /// skipped. Returns the new hash when it was stored.
    @discardableResult
    private func rehash(user: User, password: String) async -> String? {
        do {
            let fresh = try await hashing.hash(password)
            try await storage.users.replacePasswordHash(userID: user.id, old: user.passwordHash, new: fresh)
            logger.info("re-hashed password with current parameters", metadata: ["user_id": "\(user.id)"])
            return fresh
        } catch {
            logger.warning("password re-hash skipped", metadata: ["user_id": "\(user.id)", "reason": "\(type(of: error))"])
            return nil
        }
    }
}
