import AuthCore
import Foundation
import Synchronization

/// Failed-login counters in memory, in the same fixed windows as the PostgreSQL store, for
/// tests that need no database.
///
/// ```swift
/// let attempts = InMemoryLoginAttemptStore()
/// try await attempts.recordFailure(for: keys, now: clock.now)
/// ```
public final class InMemoryLoginAttemptStore: LoginAttemptStore {
    private struct Counter {
        var failures: Int
        var windowStart: Date
    }

    private struct Subject: Hashable {
        let scope: ThrottleKey.Scope
        let digest: String
    }

    private let counters = Mutex<[Subject: Counter]>([:])

    /// No failures counted.
    public init() {}

    public func retryAfter(for keys: [ThrottleKey], now: Date) async throws -> Int? {
        counters.withLock { counters in
            keys.compactMap { key -> Int? in
                guard let counter = counters[Subject(scope: key.scope, digest: key.subjectDigest)], counter.failures >= key.limit else { return nil }
                let end = counter.windowStart.addingTimeInterval(TimeInterval(key.window))
                guard end > now else { return nil }
                return Int(end.timeIntervalSince(now).rounded(.up))
            }.max()
        }
    }

    public func recordFailure(for keys: [ThrottleKey], now: Date) async throws {
        counters.withLock { counters in
            for key in keys {
                let subject = Subject(scope: key.scope, digest: key.subjectDigest)
                if let counter = counters[subject], counter.windowStart.addingTimeInterval(TimeInterval(key.window)) > now {
                    counters[subject]?.failures += 1
                } else {
                    counters[subject] = Counter(failures: 1, windowStart: now)
                }
            }
        }
    }

    public func reset(_ key: ThrottleKey) async throws {
        _ = counters.withLock { $0.removeValue(forKey: Subject(scope: key.scope, digest: key.subjectDigest)) }
    }

    /// The failures counted against `key` in its current record (0 when none).
    public func failures(for key: ThrottleKey) -> Int {
        counters.withLock { $0[Subject(scope: key.scope, digest: key.subjectDigest)]?.failures ?? 0 }
    }
}
