import AuthCore
import Foundation
import NIOCore
import PostgresNIO

/// The outbox in `deliveries` (migration 0013). A claim locks the due rows it takes,
/// skipping rows another instance's claim holds, and leases them by moving their next
/// attempt to the lease's end: an instance that dies mid-send leaves its messages due
/// again when the lease runs out.
///
/// ```swift
/// let outbox = PostgresDeliveryOutbox(database: database)
/// let due = try await outbox.claim(limit: 10, now: Date(), leaseUntil: Date().addingTimeInterval(30))
/// ```
public struct PostgresDeliveryOutbox: DeliveryOutbox {
    /// The database.
    public let database: Database

    /// Creates the outbox.
    public init(database: Database) {
        self.database = database
    }

    public func claim(limit: Int, now: Date, leaseUntil: Date) async throws -> [OutboxMessage] {
        try await database.query(
            """
            WITH due AS (
                     SELECT id FROM deliveries
                     WHERE delivered_at IS NULL AND abandoned_at IS NULL AND next_attempt_at <= \(now)
                     ORDER BY next_attempt_at, id LIMIT \(limit) FOR UPDATE SKIP LOCKED
                 ),
                 claimed AS (
                     UPDATE deliveries d SET attempts = d.attempts + 1, next_attempt_at = \(leaseUntil)
                     FROM due WHERE d.id = due.id
                     RETURNING d.id, d.kind, d.user_id, d.email, d.sealed_token, d.expires_at, d.attempts
                 )
            SELECT c.id, c.kind, c.user_id, u.username, c.email, c.sealed_token, c.expires_at, c.attempts
            FROM claimed c JOIN users u ON u.id = c.user_id ORDER BY c.id
            """
        ) { rows in
            var messages: [OutboxMessage] = []
            for try await (id, kind, userID, username, email, sealed, expiresAt, attempts)
                in rows.decode((Int64, String, UUID, String, String?, ByteBuffer?, Date, Int32).self)
            {
                guard let kind = DeliveryKind(rawValue: kind) else { continue }
                messages.append(
                    OutboxMessage(
                        id: id, kind: kind, userID: userID, username: username, email: email,
                        sealedToken: sealed.map { Data(buffer: $0) }, expiresAt: expiresAt, attempts: Int(attempts)
                    )
                )
            }
            return messages
        }
    }

    public func enqueue(_ notice: DeliveryNotice) async throws -> Int {
        try await database.countingChanges(
            """
            INSERT INTO deliveries (kind, user_id, email, created_at, expires_at, next_attempt_at)
            SELECT \(notice.kind.rawValue), id, email, \(notice.createdAt), \(notice.expiresAt), \(notice.createdAt)
            FROM users WHERE \(PostgresAccountTokenRepository.matching(notice.account)) AND disabled_at IS NULL
            """
        )
    }

    public func markDelivered(_ id: Int64, at: Date) async throws {
        try await database.execute("UPDATE deliveries SET delivered_at = \(at), sealed_token = NULL, last_error = NULL WHERE id = \(id)")
    }

    public func markFailed(_ id: Int64, reason: String, retryAt: Date) async throws {
        try await database.execute(
            "UPDATE deliveries SET last_error = \(reason), next_attempt_at = \(retryAt) WHERE id = \(id) AND delivered_at IS NULL"
        )
    }

    public func abandon(_ id: Int64, reason: String, at: Date) async throws {
        try await database.execute(
            "UPDATE deliveries SET abandoned_at = \(at), sealed_token = NULL, last_error = \(reason) WHERE id = \(id)")
    }

    public func pendingCount() async throws -> Int {
        try await database.query("SELECT count(*)::int8 FROM deliveries WHERE delivered_at IS NULL AND abandoned_at IS NULL") { rows in
            for try await count in rows.decode(Int.self) { return count }
            return 0
        }
    }

    public func deleteFinished(before date: Date, limit: Int) async throws -> Int {
        try await database.countingChanges(
            """
            DELETE FROM deliveries WHERE id = ANY(ARRAY(
                SELECT id FROM deliveries WHERE delivered_at < \(date) OR abandoned_at < \(date)
                LIMIT \(limit) FOR UPDATE SKIP LOCKED
            ))
            """
        )
    }
}
