import AuthCore
import Foundation
import PostgresNIO

/// The audit log in the `audit_events` table.
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

    public func record(_ event: SecurityEvent) async throws {
        let logger = database.logger
        try await database.run { client in
            _ = try await client.query(
                """
                INSERT INTO audit_events (at, kind, user_id, username_key, client_address, request_id, detail)
                VALUES (\(event.at), \(event.kind.rawValue), \(event.userID), \(event.usernameKey),
                        \(event.origin.clientAddress), \(event.origin.requestID), \(event.detail))
                """,
                logger: logger
            )
        }
    }

    public func recent(limit: Int, usernameKey: String?) async throws -> [SecurityEvent] {
        let logger = database.logger
        return try await database.run { client in
            let rows = try await client.query(
                """
                SELECT at, kind, user_id, username_key, client_address, request_id, detail FROM audit_events
                WHERE \(usernameKey)::text IS NULL
                   OR username_key = \(usernameKey)
                   OR user_id = (SELECT id FROM users WHERE username_key = \(usernameKey))
                ORDER BY at DESC, id DESC LIMIT \(limit)
                """,
                logger: logger
            )
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
