import AuthCore
import AuthPostgres
import Foundation
import PostgresNIO

/// What the services' tests read from (or write into) their PostgreSQL storage beyond the
/// services' own calls: the audit log in the order it was written, the login counters and the
/// stored refresh tokens.
///
/// ```swift
/// #expect(try await storage.auditEvents().map(\.kind) == [.userCreated])
/// #expect(try await storage.attempts(for: keys.account) == 0)
/// ```
extension PostgresStorage {
    /// Every audit event, oldest first (`recent` gives the newest first; events written at
    /// one instant come in the order they were written).
    func auditEvents() async throws -> [SecurityEvent] {
        Array(try await audit.recent(limit: 10_000, usernameKey: nil).reversed())
    }

    /// The attempts counted against `key` in its current window (0 when it has no counter).
    func attempts(for key: ThrottleKey) async throws -> Int {
        let rows = try await database.client.query(
            """
            SELECT coalesce(sum(failures), 0)::int8 FROM login_failures
            WHERE scope = \(key.scope.rawValue) AND subject_digest = \(key.subjectDigest)
            """
        )
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    /// The owner of every stored refresh token, by the token's hash.
    func refreshTokenOwners() async throws -> [String: UUID] {
        var owners: [String: UUID] = [:]
        let rows = try await database.client.query("SELECT token_hash, user_id FROM refresh_tokens")
        for try await (hash, owner) in rows.decode((String, UUID).self) { owners[hash] = owner }
        return owners
    }
}
