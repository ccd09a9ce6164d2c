import Foundation

/// A queued message as the sender sees it: the account's current name and address, the
/// token (if it carries one) still sealed.
///
/// ```swift
/// for message in try await outbox.claim(limit: 10, now: now, leaseUntil: now + 30) { print(message.kind, message.attempts) }
/// ```
public struct OutboxMessage: Sendable, Equatable {
    /// The row's id.
    public var id: Int64
    /// What it carries.
    public var kind: DeliveryKind
    /// The account.
    public var userID: UUID
    /// The account's username.
    public var username: String
    /// The address the message is for, if the account has one.
    public var email: String?
    /// The token, sealed by ``DeliverySealer``; nil for a notice.
    public var sealedToken: Data?
    /// When the token stops working (for a notice, when it is no longer worth sending).
    public var expiresAt: Date
    /// Attempts so far, this one included.
    public var attempts: Int

    /// Creates the value.
    public init(
        id: Int64, kind: DeliveryKind, userID: UUID, username: String, email: String?, sealedToken: Data?, expiresAt: Date, attempts: Int
    ) {
        self.id = id
        self.kind = kind
        self.userID = userID
        self.username = username
        self.email = email
        self.sealedToken = sealedToken
        self.expiresAt = expiresAt
        self.attempts = attempts
    }
}

/// The outbox that ``DeliveryService`` empties. Every instance may send: a claim leases
/// its rows (until `leaseUntil`, skipping rows another holds), so a message is sent by one
/// instance at a time, and again after the lease if that instance died before recording
/// the outcome — at least once, never lost.
///
/// ```swift
/// let due = try await outbox.claim(limit: 10, now: now, leaseUntil: now.addingTimeInterval(30))
/// try await outbox.markDelivered(due[0].id, at: now)
/// ```
public protocol DeliveryOutbox: Sendable {
    /// Queues `notice` (due at once) to every enabled account it names, at each one's address
    /// of the moment; returns how many were queued.
    func enqueue(_ notice: DeliveryNotice) async throws -> Int
    /// Up to `limit` messages due at `now` (oldest due first), each with one more attempt
    /// counted and leased until `leaseUntil`.
    func claim(limit: Int, now: Date, leaseUntil: Date) async throws -> [OutboxMessage]
    /// Records a delivery; the sealed token is erased.
    func markDelivered(_ id: Int64, at: Date) async throws
    /// Records a failed attempt (`reason` carries no secret); tried again at `retryAt`.
    func markFailed(_ id: Int64, reason: String, retryAt: Date) async throws
    /// Gives a message up (its token expired); the sealed token is erased.
    func abandon(_ id: Int64, reason: String, at: Date) async throws
    /// Messages not yet delivered nor abandoned.
    func pendingCount() async throws -> Int
    /// Deletes up to `limit` messages delivered or abandoned before `date`; returns how many.
    func deleteFinished(before date: Date, limit: Int) async throws -> Int
}

/// A notice to queue: no token, only what happened, for the accounts ``account`` names.
///
/// ```swift
/// let queued = try await storage.outbox.enqueue(DeliveryNotice(kind: .passkeyAdded, account: .id(user.id), createdAt: now,
///                                                              expiresAt: now + 86_400))
/// ```
public struct DeliveryNotice: Sendable, Equatable {
    /// What happened; a kind without a token purpose.
    public var kind: DeliveryKind
    /// To whom.
    public var account: AccountSelector
    /// When it was queued.
    public var createdAt: Date
    /// When it is no longer worth sending.
    public var expiresAt: Date

    /// Creates the value.
    public init(kind: DeliveryKind, account: AccountSelector, createdAt: Date, expiresAt: Date) {
        self.kind = kind
        self.account = account
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
