import AuthCore
import Foundation
import PostgresNIO

/// A refresh in one statement: the rotation (the `rotate_refresh_token` function) and the
/// audit event of its outcome, with the token's owner, so one round trip and one
/// transaction. The rotation's row is read twice, so PostgreSQL runs the call once
/// (a CTE referenced twice is materialised).
struct RefreshStatement: PreparedSQL {
    static let sql = Self(
        presentedHash: "", successor: RefreshSuccessor(tokenHash: "", expiresAt: Date()), now: Date(),
        events: RotationEvents(
            rotated: SecurityEvent(kind: .tokenRefreshed, at: Date()), reused: SecurityEvent(kind: .refreshReuseDetected, at: Date()))
    ).statement.text

    var presentedHash: String
    var successor: RefreshSuccessor
    var now: Date
    var events: RotationEvents

    var statement: SQL {
        """
        WITH rotation AS MATERIALIZED (\(PostgresRefreshTokenRepository.rotate(presentedHash: presentedHash, successor: successor, now: now))),
             rotated AS (\(PostgresAuditLog.insert(events.rotated, userID: "owner", from: "rotation", when: "outcome = 'rotated'"))),
             reused AS (\(PostgresAuditLog.insert(events.reused, userID: "owner", from: "rotation", when: "outcome = 'reused'")))
        SELECT outcome, owner, granted_until, session, granted_scopes FROM rotation
        """
    }
}
