import Foundation

/// The answer of ``AuthStorage/loginLookup(usernameKey:throttle:now:)``.
///
/// ```swift
/// let lookup = try await storage.loginLookup(usernameKey: "alice", throttle: keys, now: clock.now)
/// if let wait = lookup.retryAfter { throw AuthError.tooManyAttempts(retryAfter: wait) }
/// ```
public struct LoginLookup: Sendable, Equatable {
    /// Seconds to wait when a throttle key is over its limit, else nil.
    public var retryAfter: Int?
    /// The account, if it exists (may be left out when `retryAfter` is set).
    public var user: User?

    /// Creates an answer.
    public init(retryAfter: Int?, user: User?) {
        self.retryAfter = retryAfter
        self.user = user
    }
}

/// The writes of a successful login, for ``AuthStorage/recordLoginSuccess(_:)``.
///
/// ```swift
/// try await storage.recordLoginSuccess(LoginSuccess(clearedKey: keys.account, refreshToken: record, event: event))
/// ```
public struct LoginSuccess: Sendable, Equatable {
    /// The throttle key whose failure counter the login clears (the account's).
    public var clearedKey: ThrottleKey
    /// The refresh token the login issued.
    public var refreshToken: RefreshTokenRecord
    /// The `login_succeeded` audit event.
    public var event: SecurityEvent

    /// Creates the set of writes.
    public init(clearedKey: ThrottleKey, refreshToken: RefreshTokenRecord, event: SecurityEvent) {
        self.clearedKey = clearedKey
        self.refreshToken = refreshToken
        self.event = event
    }
}
