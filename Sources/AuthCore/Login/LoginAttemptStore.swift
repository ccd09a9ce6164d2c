import Foundation

/// Failure counters for login throttling, shared by every instance.
///
/// ```swift
/// if let wait = try await attempts.retryAfter(for: keys, now: now) { throw AuthError.tooManyAttempts(retryAfter: wait) }
/// ```
public protocol LoginAttemptStore: Sendable {
    /// Seconds to wait when any key is over its limit, else nil.
    func retryAfter(for keys: [ThrottleKey], now: Date) async throws -> Int?
    /// Counts one failure against every key.
    func recordFailure(for keys: [ThrottleKey], now: Date) async throws
    /// Clears the counter of `key` (after a successful login).
    func reset(_ key: ThrottleKey) async throws
}
