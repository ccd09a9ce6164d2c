import Foundation

/// Tells an account's owner, through the delivery URL, of what happened to the account that
/// they should know of even when they did not do it: a second factor or a passkey added, a
/// sign-up with their address. Each notice is a row of the outbox, sent as tokens are
/// (signed, retried, given up after ``lifetime``), without a token.
///
/// ```swift
/// let notices = OwnerNotices(storage: storage, wake: wake)
/// try await notices.notify(.passkeyAdded, account: .id(user.id))
/// ```
public struct OwnerNotices<Storage: AuthStorage>: Sendable {
    /// The outbox.
    public let storage: Storage
    /// Wakes this instance's sender once a notice is queued.
    public let wake: DeliveryWake
    /// How long a notice is worth sending, seconds (a day).
    public let lifetime: TimeInterval
    /// The time of the notice.
    public let clock: any WallClock

    /// Creates the service.
    public init(storage: Storage, wake: DeliveryWake, lifetime: TimeInterval = 86_400, clock: any WallClock = SystemClock()) {
        self.storage = storage
        self.wake = wake
        self.lifetime = lifetime
        self.clock = clock
    }

    /// Queues a notice of `kind` (one without a token) to each enabled account `account`
    /// names, and wakes the sender.
    public func notify(_ kind: DeliveryKind, account: AccountSelector) async throws {
        precondition(kind.tokenPurpose == nil, "a message with a token is queued with its token")
        let now = clock.now
        let queued = try await storage.outbox.enqueue(
            DeliveryNotice(kind: kind, account: account, createdAt: now, expiresAt: now.addingTimeInterval(lifetime))
        )
        if queued > 0 { wake.signal() }
    }
}
