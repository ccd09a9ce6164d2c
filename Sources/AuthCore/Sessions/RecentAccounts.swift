import Foundation
import Synchronization

/// Accounts read for access tokens, with their session, kept for `lifetime` seconds of the
/// injected clock (an entry from a time the clock has gone back before is not used), so a client sending its token again and again (`GET /me`) costs no read of
/// its account each time. Only enabled accounts in live sessions are kept. What another
/// instance or the command line changes (a disabled or deleted account, an ended session)
/// takes effect here within `lifetime`; what this instance changes it forgets at once
/// (``forget(_:)``).
///
/// ```swift
/// let accounts = RecentAccounts(lifetime: 1, clock: SystemClock())
/// let user = try await accounts.user(id, session: sid) { try await storage.user(withID: id, inSession: sid, now: now) }
/// accounts.forget(id)   // after deleting it, or ending one of its sessions
/// ```
public final class RecentAccounts: Sendable {
    /// Seconds an account read is used for; 0 keeps none.
    public let lifetime: TimeInterval
    /// How many accounts are kept; past it the set starts again.
    public static let capacity = 10_000
    /// The time entries are stamped and checked with.
    public let clock: any WallClock
    /// Per account, per session (nil: a token that names none), the account and when it was read.
    private let entries = Mutex([UUID: [UUID?: (user: User, read: Date)]]())

    /// Keeps accounts for `lifetime` seconds of `clock` (at most a second is what
    /// docs/03-http-api.md promises).
    public init(lifetime: TimeInterval, clock: any WallClock = SystemClock()) {
        self.lifetime = lifetime
        self.clock = clock
    }

    /// The account `id` in `session`: kept if read less than `lifetime` ago, else what `read`
    /// answers (kept when it is enabled).
    public func user(_ id: UUID, session: UUID?, read: () async throws -> User?) async throws -> User? {
        guard lifetime > 0 else { return try await read() }
        let now = clock.now
        if let kept = entries.withLock({ $0[id]?[session] }), kept.read <= now, now < kept.read.addingTimeInterval(lifetime) {
            return kept.user
        }
        let user = try await read()
        entries.withLock { entries in
            guard let user, !user.isDisabled else {
                entries[id]?[session] = nil
                return
            }
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[id, default: [:]][session] = (user, now)
        }
        return user
    }

    /// Drops the account `id` in every session, which this instance just changed.
    public func forget(_ id: UUID) {
        _ = entries.withLock { $0.removeValue(forKey: id) }
    }
}
