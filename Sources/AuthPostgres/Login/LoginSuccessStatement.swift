import AuthCore
import Foundation
import PostgresNIO

/// The writes of a successful login (the address remembered among the username's known
/// ones with the rest) in one statement, so one round trip and one
/// transaction: data-modifying CTEs always run, whether or not the outer query reads them
/// (the counters' release, a function called by a SELECT, is read so that it runs too).
/// Each part is the statement its store runs alone. The session, its token and the event
/// are written only if the account still has the hash the password was checked against and
/// is not disabled; its row is share-locked, so a password set at the same moment either
/// waits for this login (and its revocation then ends the new session) or is seen by it
/// (and nothing is written). Returns one row: 1 when written, 0 when not.
struct LoginSuccessStatement: PreparedSQL {
    static let sql = Self(
        success: LoginSuccess(
            throttle: ThrottlePolicy().keys(usernameKey: "", address: nil), verifiedPasswordHash: "",
            refreshToken: RefreshTokenRecord(tokenHash: "", familyID: UUID(), userID: UUID(), expiresAt: Date(), sessionExpiresAt: Date()),
            event: SecurityEvent(kind: .loginSucceeded, at: Date())
        )
    ).statement.text

    var success: LoginSuccess

    var statement: SQL {
        let unchanged: SQL = "EXISTS (SELECT 1 FROM account)"
        return """
            WITH account AS (\(PostgresUserRepository.lockUnchanged(id: success.refreshToken.userID, passwordHash: success.verifiedPasswordHash))),
                 released AS (
                     SELECT \(PostgresLoginAttemptStore.release(success.throttle.releasedBySuccess, clearing: success.throttle.clearedBySuccess))
                 ),
                 family AS (\(PostgresRefreshTokenRepository.insertFamily(success.refreshToken, when: unchanged))),
                 token AS (\(PostgresRefreshTokenRepository.insert(success.refreshToken, when: unchanged))),
                 event AS (\(PostgresAuditLog.insert(success.event, when: unchanged))),
                 known AS (\(PostgresLoginAttemptStore.remember([success.throttle.pair].compactMap { $0 }, at: success.event.at, when: unchanged)))
            SELECT (SELECT count(*)::int8 FROM account) FROM released
            """
    }
}
