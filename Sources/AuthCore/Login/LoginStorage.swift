import Foundation

/// The answer of ``AuthStorage/loginLookup(usernameKey:throttle:now:)``.
///
/// ```swift
/// let lookup = try await storage.loginLookup(usernameKey: "alice", throttle: keys.all, now: clock.now)
/// if let refusal = lookup.refusal { throw AuthError.tooManyAttempts(retryAfter: refusal.retryAfter) }
/// ```
public struct LoginLookup: Sendable, Equatable {
    /// Set when the attempt was not reserved; nil when it was counted against every key.
    public var refusal: ThrottleRefusal?
    /// The account, if it exists (may be left out when `refusal` is set).
    public var user: User?
    /// Whether the account has a second factor on (a right password then earns an
    /// `mfa_token`, not a session).
    public var secondFactorRequired: Bool

    /// Creates an answer.
    public init(refusal: ThrottleRefusal?, user: User?, secondFactorRequired: Bool = false) {
        self.refusal = refusal
        self.user = user
        self.secondFactorRequired = secondFactorRequired
    }
}

/// The writes of a successful login, for ``AuthStorage/recordLoginSuccess(_:)``.
///
/// ```swift
/// let recorded = try await storage.recordLoginSuccess(LoginSuccess(
///     throttle: keys, verifiedPasswordHash: user.passwordHash, refreshToken: record, event: event
/// ))
/// ```
public struct LoginSuccess: Sendable, Equatable {
    /// The attempt's throttle keys: the username's are cleared, the address's given back.
    public var throttle: ThrottleKeys
    /// The stored hash the password was checked against: the session is written only if
    /// the account still has it.
    public var verifiedPasswordHash: String
    /// The refresh token the login issued.
    public var refreshToken: RefreshTokenRecord
    /// The `login_succeeded` audit event.
    public var event: SecurityEvent

    /// Creates the set of writes.
    public init(throttle: ThrottleKeys, verifiedPasswordHash: String, refreshToken: RefreshTokenRecord, event: SecurityEvent) {
        self.throttle = throttle
        self.verifiedPasswordHash = verifiedPasswordHash
        self.refreshToken = refreshToken
        self.event = event
    }
}
