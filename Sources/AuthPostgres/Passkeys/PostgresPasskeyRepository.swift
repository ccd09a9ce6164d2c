import AuthCore
import Foundation
import NIOCore
import PostgresNIO

/// Passkeys in `passkeys` and user handles in `users.passkey_user_handle` (migration 0015).
///
/// ```swift
/// let passkeys = PostgresPasskeyRepository(database: database)
/// let mine = try await passkeys.passkeys(ofUser: user.id)
/// ```
public struct PostgresPasskeyRepository: PasskeyRepository {
    /// The database.
    public let database: Database

    /// Creates the repository.
    public init(database: Database) {
        self.database = database
    }

    private static let columns: SQL = """
        id, user_id, public_key, algorithm, sign_count, backup_eligible, backed_up, transports, aaguid, attestation_format,
        name, created_at, last_used_at
        """

    private typealias Row = (ByteBuffer, UUID, ByteBuffer, Int32, Int64, Bool, Bool, [String], UUID, String, String, Date, Date?)

    private static func passkey(_ row: Row) -> Passkey {
        Passkey(
            id: Data(buffer: row.0), userID: row.1, publicKey: Data(buffer: row.2), algorithm: Int(row.3),
            signCount: UInt32(clamping: row.4), backupEligible: row.5, backedUp: row.6, transports: row.7, aaguid: row.8,
            attestationFormat: row.9, name: row.10, createdAt: row.11, lastUsedAt: row.12
        )
    }

    public func userHandle(ofUser userID: UUID, creating candidate: Data) async throws -> Data? {
        try await database.query(
            """
            UPDATE users SET passkey_user_handle = coalesce(passkey_user_handle, \(ByteBuffer(bytes: candidate)))
            WHERE id = \(userID) RETURNING passkey_user_handle
            """
        ) { rows in
            for try await handle in rows.decode(ByteBuffer.self) { return Data(buffer: handle) }
            return nil
        }
    }

    public func userHandle(ofUser userID: UUID) async throws -> Data? {
        try await database.query("SELECT passkey_user_handle FROM users WHERE id = \(userID)") { rows in
            for try await handle in rows.decode(ByteBuffer?.self) { return handle.map { Data(buffer: $0) } }
            return nil
        }
    }

    public func passkeys(ofUser userID: UUID) async throws -> [Passkey] {
        try await database.query("SELECT \(Self.columns) FROM passkeys WHERE user_id = \(userID) ORDER BY created_at, id") { rows in
            var passkeys: [Passkey] = []
            for try await row in rows.decode(Row.self) { passkeys.append(Self.passkey(row)) }
            return passkeys
        }
    }

    public func passkey(id: Data) async throws -> Passkey? {
        try await database.query("SELECT \(Self.columns) FROM passkeys WHERE id = \(ByteBuffer(bytes: id))") { rows in
            for try await row in rows.decode(Row.self) { return Self.passkey(row) }
            return nil
        }
    }

    public func add(_ passkey: Passkey, limit: Int) async throws -> Bool {
        // The account's row is locked first, so two registrations racing past the limit wait.
        try await database.query(
            """
            WITH account AS (SELECT id FROM users WHERE id = \(passkey.userID) FOR UPDATE),
                 added AS (
                     INSERT INTO passkeys (\(Self.columns))
                     SELECT \(ByteBuffer(bytes: passkey.id)), \(passkey.userID), \(ByteBuffer(bytes: passkey.publicKey)),
                            \(Int32(clamping: passkey.algorithm)), \(Int64(passkey.signCount)), \(passkey.backupEligible),
                            \(passkey.backedUp), \(passkey.transports), \(passkey.aaguid), \(passkey.attestationFormat), \(passkey.name),
                            \(passkey.createdAt), \(passkey.lastUsedAt)
                     FROM account
                     WHERE (SELECT count(*) FROM passkeys WHERE user_id = \(passkey.userID)) < \(limit)
                     ON CONFLICT (id) DO NOTHING
                     RETURNING 1
                 )
            SELECT count(*)::int8 FROM added
            """
        ) { rows in
            for try await count in rows.decode(Int.self) { return count == 1 }
            return false
        }
    }

    public func recordUse(id: Data, signCount: UInt32, backedUp: Bool, at date: Date) async throws -> Bool {
        let count = Int64(signCount)
        return try await database.countingChanges(
            """
            UPDATE passkeys SET sign_count = \(count), backed_up = \(backedUp), last_used_at = \(date)
            WHERE id = \(ByteBuffer(bytes: id)) AND (sign_count < \(count) OR (sign_count = 0 AND \(count) = 0))
            """
        ) == 1
    }

    public func commonShape() async throws -> PasskeyShape? {
        try await database.query(
            """
            SELECT octet_length(id)::int8, transports FROM passkeys
            GROUP BY 1, 2 ORDER BY count(*) DESC, 1, 2 LIMIT 1
            """
        ) { rows in
            for try await (length, transports) in rows.decode((Int, [String]).self) {
                return PasskeyShape(idLength: length, transports: transports)
            }
            return nil
        }
    }

    public func delete(id: Data, ofUser userID: UUID) async throws -> Bool {
        try await database.countingChanges("DELETE FROM passkeys WHERE id = \(ByteBuffer(bytes: id)) AND user_id = \(userID)") == 1
    }

    public func deleteKeepingAWayIn(id: Data, ofUser userID: UUID) async throws -> Bool {
        let id = ByteBuffer(bytes: id)
        return try await database.countingChanges(
            """
            WITH account AS (SELECT id, has_password FROM users WHERE id = \(userID) FOR UPDATE)
            DELETE FROM passkeys WHERE id = \(id) AND user_id IN (SELECT id FROM account)
                AND ((SELECT has_password FROM account)
                     OR EXISTS (SELECT 1 FROM passkeys WHERE user_id = \(userID) AND id <> \(id))
                     OR EXISTS (SELECT 1 FROM identities WHERE user_id = \(userID)))
            """
        ) == 1
    }
}
