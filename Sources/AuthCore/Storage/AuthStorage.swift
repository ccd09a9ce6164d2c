import Foundation

/// Everything authd keeps, as one value the composition root injects: PostgreSQL
/// (`PostgresStorage`), in production and in the tests alike.
///
/// ```swift
/// func serve(storage: some AuthStorage) async throws {
///     try await storage.migrate()
///     let user = try await storage.users.user(withKey: "alice")
/// }
/// ```
public protocol AuthStorage: Sendable {
    /// Account storage.
    associatedtype Users: UserRepository
    /// Refresh token storage.
    associatedtype RefreshTokens: RefreshTokenRepository
    /// Login-attempt counters.
    associatedtype Attempts: LoginAttemptStore
    /// Signing keys.
    associatedtype SigningKeys: SigningKeyRepository
    /// What `GET /health/ready` asks.
    associatedtype Readiness: ReadinessProbe
    /// The audit log.
    associatedtype Audit: AuditLog
    /// Password-reset and email-verification tokens.
    associatedtype AccountTokens: AccountTokenRepository
    /// Messages waiting for the delivery URL.
    associatedtype Outbox: DeliveryOutbox
    /// Authenticator apps and recovery codes.
    associatedtype SecondFactors: SecondFactorRepository
    /// The second steps of logins and the passkey ceremonies' challenges.
    associatedtype LoginChallenges: LoginChallengeRepository
    /// Passkeys and user handles.
    associatedtype Passkeys: PasskeyRepository
    /// Registered relying parties.
    associatedtype Clients: OAuthClientRepository
    /// The codes `/authorize` gives.
    associatedtype AuthorizationCodes: AuthorizationCodeRepository
    associatedtype Consents: ConsentRepository
    /// Upstream identity providers.
    associatedtype Providers: IdentityProviderRepository
    /// The accounts' identities at providers.
    associatedtype Identities: IdentityRepository

    /// Accounts.
    var users: Users { get }
    /// Refresh tokens.
    var refreshTokens: RefreshTokens { get }
    /// Login-attempt counters.
    var loginAttempts: Attempts { get }
    /// Signing keys.
    var signingKeys: SigningKeys { get }
    /// The readiness check.
    var readiness: Readiness { get }
    /// Security events.
    var audit: Audit { get }
    /// Password-reset and email-verification tokens (issued with their messages).
    var accountTokens: AccountTokens { get }
    /// The outbox of messages for the delivery URL.
    var outbox: Outbox { get }
    /// Authenticator apps (TOTP) and recovery codes.
    var secondFactors: SecondFactors { get }
    /// The second steps of logins (`mfa_token`s) and the passkey ceremonies' challenges.
    var loginChallenges: LoginChallenges { get }
    /// Passkeys (WebAuthn credentials) and the accounts' user handles.
    var passkeys: Passkeys { get }
    /// Relying parties registered with `authd client add`.
    var clients: Clients { get }
    /// Authorization codes.
    var authorizationCodes: AuthorizationCodes { get }
    /// What users allowed third-party clients.
    var consents: Consents { get }
    /// Providers added with `authd provider add`.
    var providers: Providers { get }
    /// Identities at providers, links waiting for confirmation, ID tokens used.
    var identities: Identities { get }

    /// This storage for reads that may be a moment old (a read replica's, within its
    /// maximum lag), or nil when there is none to go to: what routes that only show
    /// something use (`GET /me`, the session list, `/userinfo`, access-token introspection),
    /// through ``readConfirming(_:)``. Every write, and every read that decides one, uses the
    /// storage itself. The default is nil.
    var staleReads: Self? { get }

    /// Brings the schema up to date; returns what it applied (empty when nothing was due).
    @discardableResult
    func migrate() async throws -> [String]

    /// Runs the storage's background work (a connection pool) until the task is cancelled
    /// or shut down; returns at once when there is none.
    func run() async

    /// What a login needs before it checks the password: the attempt reserved against every
    /// throttle key (or the refusal), the account, and whether it has a second factor on. Storage that can do both in one
    /// round trip does (PostgreSQL: one statement); the default asks the two stores.
    func loginLookup(usernameKey: String, throttle keys: [ThrottleKey], now: Date) async throws -> LoginLookup

    /// What a successful login writes: the username's counters cleared and the address's
    /// attempt given back, the new refresh token, the audit event, the address remembered
    /// as one the username logs in from; the token, the event and the address
    /// only if the account still has the password hash that was checked and is enabled
    /// (returns false, writing no session, when a password set or a disabling came between).
    /// Storage that can do all of it in one round trip does (PostgreSQL: one statement, so
    /// one transaction); the default asks the stores.
    func recordLoginSuccess(_ success: LoginSuccess) async throws -> Bool

    /// The account `id` while its session `session` is live at `now` (the account's, not
    /// ended, not past its end): what an access token issued in that session may act as; nil
    /// otherwise. Storage that can answer in one round trip does (PostgreSQL: one prepared
    /// statement); the default asks the two stores.
    func user(withID id: UUID, inSession session: UUID, now: Date) async throws -> User?

    /// A refresh: the rotation (``RefreshTokenRepository/rotate(presentedHash:successor:now:)``)
    /// and its audit event, `events.rotated` or `events.reused` with the token's owner as
    /// `userID` (nothing for another outcome). Storage that can do both in one round trip
    /// does (PostgreSQL: one statement, so one transaction); the default asks the stores.
    func rotateRefreshToken(presentedHash: String, successor: RefreshSuccessor, now: Date, events: RotationEvents) async throws
        -> RefreshRotation
}

extension AuthStorage {
    public var staleReads: Self? { nil }

    /// What `read` finds on a read replica (``staleReads``), or on this storage when there is
    /// none or the replica finds nothing: a replica may confirm what a route shows, never
    /// deny it, so a session that began a moment ago (not yet replayed there) is not refused.
    ///
    /// ```swift
    /// let user = try await storage.readConfirming { try await $0.user(withID: id, inSession: sid, now: now) }
    /// ```
    public func readConfirming<T>(_ read: (Self) async throws -> T?) async throws -> T? {
        if let replica = staleReads, let found = try await read(replica) { return found }
        return try await read(self)
    }

    public func loginLookup(usernameKey: String, throttle keys: [ThrottleKey], now: Date) async throws -> LoginLookup {
        let refusal = try await loginAttempts.reserve(keys, now: now)
        let user = try await users.user(withKey: usernameKey)
        guard let user else { return LoginLookup(refusal: refusal, user: nil) }
        let secondFactor = try await secondFactors.totpFactor(userID: user.id)?.isConfirmed == true
        return LoginLookup(refusal: refusal, user: user, secondFactorRequired: secondFactor)
    }

    public func user(withID id: UUID, inSession session: UUID, now: Date) async throws -> User? {
        guard let user = try await users.user(withID: id), try await refreshTokens.isSessionLive(session, now: now) else { return nil }
        return user
    }

    public func recordLoginSuccess(_ success: LoginSuccess) async throws -> Bool {
        try await loginAttempts.release(success.throttle.releasedBySuccess, clearing: success.throttle.clearedBySuccess)
        guard let account = try await users.user(withID: success.refreshToken.userID),
            account.passwordHash == success.verifiedPasswordHash, !account.isDisabled
        else { return false }
        try await refreshTokens.store(success.refreshToken)
        try await audit.record(success.event)
        if let pair = success.throttle.pair { try await loginAttempts.remember(pair, at: success.event.at) }
        return true
    }

    public func rotateRefreshToken(
        presentedHash: String, successor: RefreshSuccessor, now: Date, events: RotationEvents
    ) async throws -> RefreshRotation {
        let outcome = try await refreshTokens.rotate(presentedHash: presentedHash, successor: successor, now: now)
        if let event = events.event(for: outcome) { try await audit.record(event) }
        return outcome
    }
}
