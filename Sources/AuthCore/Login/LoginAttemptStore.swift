import Foundation

/// Login-attempt counters, shared by every instance: an attempt is reserved before its
/// password is checked, so simultaneous guesses cannot outrun a limit.
///
/// ```swift
/// if let refusal = try await attempts.reserve(keys.all, now: now) {
///     throw AuthError.tooManyAttempts(retryAfter: refusal.retryAfter)
/// }
/// // … the password checks out:
/// try await attempts.release(keys.releasedBySuccess, clearing: keys.clearedBySuccess)
/// ```
public protocol LoginAttemptStore: Sendable {
    /// Counts one attempt against every key, atomically, when none is at its limit; else
    /// counts nothing and returns the refusal.
    func reserve(_ keys: [ThrottleKey], now: Date) async throws -> ThrottleRefusal?
    /// Gives back an attempt that was no failure: the counters of `cleared` are reset to none,
    /// those of `released` lose one attempt.
    func release(_ released: [ThrottleKey], clearing cleared: [ThrottleKey]) async throws
    /// Deletes at most `limit` counters whose window started before `date`; returns how
    /// many it deleted.
    func deleteCounters(startedBefore date: Date, limit: Int) async throws -> Int
    /// Reserves as ``reserve(_:now:)`` does, but only when `known` (a username from one
    /// address, ``ThrottleKeys/pair``) had a successful login at or after `since`;
    /// ``KnownAddressReservation/unknown``, counting nothing, otherwise.
    func reserve(_ keys: [ThrottleKey], ifKnown known: ThrottleKey, since: Date, now: Date) async throws -> KnownAddressReservation
    /// Remembers that `pair` (a username from one address) logged in at `date`.
    func remember(_ pair: ThrottleKey, at date: Date) async throws
    /// Forgets at most `limit` addresses whose last login was before `date`; returns how many.
    func forgetKnownAddresses(before date: Date, limit: Int) async throws -> Int
}

/// What ``LoginAttemptStore/reserve(_:ifKnown:since:now:)`` did.
///
/// ```swift
/// if case .reserved = try await attempts.reserve([pair, address], ifKnown: pair, since: monthAgo, now: now) { … }
/// ```
public enum KnownAddressReservation: Sendable, Equatable {
    /// The address had no successful login of the username since then: nothing reserved.
    case unknown
    /// Known, and the attempt was counted.
    case reserved
    /// Known, but a key was at its limit.
    case refused(ThrottleRefusal)
}

/// Why an attempt was not reserved.
///
/// ```swift
/// ThrottleRefusal(retryAfter: 840, isFirst: true)
/// ```
public struct ThrottleRefusal: Sendable, Equatable {
    /// Seconds until the longest of the exhausted windows ends.
    public var retryAfter: Int
    /// Whether this is the first refusal of that window: worth an audit event, where the
    /// later ones only count in metrics.
    public var isFirst: Bool

    /// Creates a refusal.
    public init(retryAfter: Int, isFirst: Bool) {
        self.retryAfter = retryAfter
        self.isFirst = isFirst
    }
}
