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
    /// Gives back an attempt that was no failure: the counters of `cleared` are deleted,
    /// those of `released` lose one attempt.
    func release(_ released: [ThrottleKey], clearing cleared: [ThrottleKey]) async throws
    /// Deletes at most `limit` counters whose window started before `date`; returns how
    /// many it deleted.
    func deleteCounters(startedBefore date: Date, limit: Int) async throws -> Int
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
