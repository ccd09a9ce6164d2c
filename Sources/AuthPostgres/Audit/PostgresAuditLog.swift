import AuthCore
import Foundation
import PostgresNIO

/// The audit log in the `audit_events` table. Each statement on the table is written here
/// once; the login's combined statement (``PostgresStorage``) splices in ``insert(_:)``.
///
/// ```swift
/// try await PostgresAuditLog(database: database).record(SecurityEvent(kind: .loggedOut, at: Date(), userID: id))
/// ```
public struct PostgresAuditLog: AuditLog {
    /// The database.
    public let database: Database

    /// Creates the log.
    public init(database: Database) {
        self.database = database
    }

    /// Appends `event`, if `condition` holds.
    /// With `source`, the event is written once per row of it that meets `condition`, and
    /// `userID` (an expression on its rows) is the user instead of `event.userID`.
    static func insert(_ event: SecurityEvent, userID: SQL? = nil, from source: SQL? = nil, when condition: SQL = "true") -> SQL {
        let user: SQL = userID ?? "\(event.userID)"
        let from: SQL = source.map { "FROM \($0) " } ?? ""
        return """
            INSERT INTO audit_events (at, kind, user_id, username_key, client_address, request_id, detail)
            SELECT \(event.at), \(event.kind.rawValue), \(user), \(event.usernameKey),
                   \(event.origin.clientAddress), \(event.origin.requestID), \(event.detail) \(from)WHERE \(condition)
            """
    }

    public func record(_ event: SecurityEvent) async throws {
        try await database.execute(Self.insert(event))
    }

    public func forgetUsername(ofUser userID: UUID) async throws {
        try await database.execute("UPDATE audit_events SET username_key = NULL WHERE user_id = \(userID) AND username_key IS NOT NULL")
    }

    public func deleteEvents(before date: Date, limit: Int) async throws -> Int {
        try await database.countingChanges(
            "DELETE FROM audit_events WHERE id = ANY(ARRAY(SELECT id FROM audit_events WHERE at < \(date) ORDER BY at LIMIT \(limit)))"
        )
    }

    public func recent(limit: Int, usernameKey: String?) async throws -> [SecurityEvent] {
        try await database.query(
            """
            SELECT at, kind, user_id, username_key, client_address, request_id, detail FROM audit_events
            WHERE \(usernameKey)::text IS NULL
               OR username_key = \(usernameKey)
               OR user_id = (SELECT id FROM users WHERE username_key = \(usernameKey))
            ORDER BY at DESC, id DESC LIMIT \(limit)
            """
        ) { rows in
            var events: [SecurityEvent] = []
            for try await (at, kind, userID, key, address, requestID, detail) in rows.decode(
                (Date, String, UUID?, String?, String?, String?, String?).self
            ) {
                guard let kind = SecurityEvent.Kind(rawValue: kind) else { continue }
                events.append(
                    SecurityEvent(
                        kind: kind, at: at, userID: userID, usernameKey: key,
                        origin: RequestOrigin(clientAddress: address, requestID: requestID), detail: detail
                    )
                )
            }
            return events
        }
    }
}
