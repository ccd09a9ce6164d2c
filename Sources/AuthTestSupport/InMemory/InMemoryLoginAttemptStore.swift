import AuthCore
import Foundation
import Synchronization

/// Login-attempt counters in memory, with the rules of the PostgreSQL store's
/// `login_reserve` (fixed windows, growing ones for keys with a longer maximum, nothing
/// counted when a key is at its limit), for tests that need no database.
///
/// ```swift
/// let attempts = InMemoryLoginAttemptStore()
/// let refusal = try await attempts.reserve(keys.all, now: clock.now)
/// ```
public final class InMemoryLoginAttemptStore: LoginAttemptStore {
    private struct Counter {
        var attempts = 0
        var windowStart: Date
        var lockouts = 0
        var refusals = 0

        /// When the current window of `key` ends, grown by the lockouts before it.
        func windowEnd(of key: ThrottleKey) -> Date {
            windowStart.addingTimeInterval(TimeInterval(key.windowLength(afterLockouts: lockouts)))
        }
    }

    private struct Subject: Hashable {
        let scope: ThrottleKey.Scope
        let digest: String

        init(_ key: ThrottleKey) {
            (scope, digest) = (key.scope, key.subjectDigest)
        }
    }

    private let counters = Mutex<[Subject: Counter]>([:])
    private let known = Mutex<[String: Date]>([:])

    /// No attempts counted.
    public init() {}

    public func reserve(_ keys: [ThrottleKey], now: Date) async throws -> ThrottleRefusal? {
        counters.withLock { counters in
            for key in keys {
                var counter = counters[Subject(key)] ?? Counter(windowStart: now)
                if counter.windowEnd(of: key) <= now {
                    let usedUp = counter.attempts >= key.limit && key.maxWindow > key.window
                    counter = Counter(windowStart: now, lockouts: usedUp ? min(counter.lockouts + 1, 20) : 0)
                }
                counters[Subject(key)] = counter
            }
            let exhausted = keys.filter { key in counters[Subject(key)].map { $0.attempts >= key.limit } ?? false }
            guard exhausted.isEmpty else {
                var first = false
                var wait = 0
                for key in exhausted {
                    guard var counter = counters[Subject(key)] else { continue }
                    counter.refusals += 1
                    first = first || counter.refusals == 1
                    wait = max(wait, Int(counter.windowEnd(of: key).timeIntervalSince(now).rounded(.up)))
                    counters[Subject(key)] = counter
                }
                return ThrottleRefusal(retryAfter: wait, isFirst: first)
            }
            for key in keys { counters[Subject(key)]?.attempts += 1 }
            return nil
        }
    }

    public func release(_ released: [ThrottleKey], clearing cleared: [ThrottleKey]) async throws {
        counters.withLock { counters in
            for key in cleared { counters.removeValue(forKey: Subject(key)) }
            for key in released {
                guard var counter = counters[Subject(key)] else { continue }
                counter.attempts = max(counter.attempts - 1, 0)
                counters[Subject(key)] = counter
            }
        }
    }

    public func deleteCounters(startedBefore date: Date, limit: Int) async throws -> Int {
        counters.withLock { counters in
            let old = counters.filter { $0.value.windowStart < date }.keys.prefix(limit)
            for subject in old { counters.removeValue(forKey: subject) }
            return old.count
        }
    }

    public func reserve(_ keys: [ThrottleKey], ifKnown pair: ThrottleKey, since: Date, now: Date) async throws -> KnownAddressReservation {
        guard let last = known.withLock({ $0[pair.subjectDigest] }), last >= since else { return .unknown }
        return try await reserve(keys, now: now).map { .refused($0) } ?? .reserved
    }

    public func remember(_ pair: ThrottleKey, at date: Date) async throws {
        known.withLock { $0[pair.subjectDigest] = date }
    }

    public func forgetKnownAddresses(before date: Date, limit: Int) async throws -> Int {
        known.withLock { known in
            let old = known.filter { $0.value < date }.keys.prefix(limit)
            for digest in old { known.removeValue(forKey: digest) }
            return old.count
        }
    }

    /// The attempts counted against `key` in its current window (0 when none).
    public func attempts(for key: ThrottleKey) -> Int {
        counters.withLock { $0[Subject(key)]?.attempts ?? 0 }
    }
}
