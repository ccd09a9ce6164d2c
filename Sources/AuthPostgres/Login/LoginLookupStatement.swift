import AuthCore
import Foundation
import PostgresNIO

/// The login's first statement: the attempt reserved against every throttle key and the
/// account (with whether it has a second factor on) read at once, made of the statements
/// the login-attempt store and the user repository own.
///
/// ```swift
/// try await database.query(LoginLookupStatement(usernameKey: "alice", keys: keys, now: Date())) { rows in … }
/// ```
struct LoginLookupStatement: PreparedSQL {
    static let sql = Self(usernameKey: "", keys: [], now: Date(timeIntervalSince1970: 0)).statement.text

    var usernameKey: String
    var keys: [ThrottleKey]
    var now: Date

    var statement: SQL {
        """
        SELECT r.retry_after, r.first_refusal, u.*,
               EXISTS (SELECT 1 FROM totp_factors t WHERE t.user_id = u.id AND t.confirmed_at IS NOT NULL)
        FROM \(PostgresLoginAttemptStore.reserve(keys, now: now)) AS r
        LEFT JOIN (\(PostgresUserRepository.select(key: usernameKey))) AS u ON true
        """
    }
}
