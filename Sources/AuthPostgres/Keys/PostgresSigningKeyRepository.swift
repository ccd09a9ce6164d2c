import AuthCore
import Foundation
import PostgresNIO

/// Signing keys in the `signing_keys` table, sealed (`sealed_private_key`,
/// `kek_fingerprint`); `private_key` holds a clear key only in a row written before keys
/// were sealed, until it is sealed in place.
///
/// ```swift
/// let keys = try await PostgresSigningKeyRepository(database: database)
///     .ensureSigningKey(limit: 2) { try kek.seal(SigningKey.generate(now: Date())) }
/// ```
public struct PostgresSigningKeyRepository: SigningKeyRepository {
    /// The database.
    public let database: Database

    /// Creates the repository.
    public init(database: Database) {
        self.database = database
    }

    public func keys(limit: Int?) async throws -> [SealedSigningKey] {
        try await database.query(Self.newest(limit)) { try await Self.keys(in: $0) }
    }

    public func ensureSigningKey(limit: Int, _ make: @Sendable () throws -> SealedSigningKey) async throws -> [SealedSigningKey] {
        let candidate = try make()
        return try await locked { connection, logger in
            if try await Self.keys(in: try await connection.query(try Self.newest(limit).query, logger: logger)).isEmpty {
                try await connection.query(try Self.insert(candidate).query, logger: logger)
            }
            try await connection.query(try Self.deleteBeyond(limit).query, logger: logger)
            return try await Self.keys(in: try await connection.query(try Self.newest(limit).query, logger: logger))
        }
    }

    public func add(_ key: SealedSigningKey, removing kids: [String], keeping: Int) async throws {
        try await locked { connection, logger in
            try await connection.query(try Self.insert(key).query, logger: logger)
            let revoked: SQL = "DELETE FROM signing_keys WHERE kid = ANY(\(kids))"
            try await connection.query(try revoked.query, logger: logger)
            try await connection.query(try Self.deleteBeyond(keeping).query, logger: logger)
        }
    }

    public func clearKeys() async throws -> [SigningKey] {
        let statement: SQL =
            "SELECT kid, private_key, created_at FROM signing_keys WHERE private_key IS NOT NULL ORDER BY created_at DESC, kid"
        return try await database.query(statement) { rows in
            var keys: [SigningKey] = []
            for try await (kid, material, createdAt) in rows.decode((String, ByteBuffer, Date).self) {
                keys.append(SigningKey(kid: kid, privateKey: Data(buffer: material), createdAt: createdAt))
            }
            return keys
        }
    }

    public func replaceClearKey(with sealed: SealedSigningKey) async throws {
        try await database.execute(
            """
            UPDATE signing_keys SET private_key = NULL,
                sealed_private_key = \(ByteBuffer(bytes: sealed.sealedPrivateKey)), kek_fingerprint = \(sealed.keyEncryptionKeyFingerprint)
            WHERE kid = \(sealed.kid) AND private_key IS NOT NULL
            """
        )
    }

    public func purgeClearCopies() async throws {
        // Not in a transaction: VACUUM cannot run in one. The table's owner (the role that
        // ran the migrations) may run it. FREEZE makes it aggressive: a page another backend
        // has pinned (a checkpoint writing it) is waited for, not left unpruned with its
        // clear copies.
        try await database.execute("VACUUM (FREEZE) signing_keys")
    }

    /// Runs `body` in a transaction holding the signing keys' advisory lock, so that key
    /// changes (first starts, rotations) serialise.
    private func locked<T: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> T
    ) async throws -> T {
        let logger = database.logger
        return try await database.run { client in
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(AdvisoryLock.signingKeys))", logger: logger)
                return try await body(connection, logger)
            }
        }
    }

    private static func insert(_ key: SealedSigningKey) -> SQL {
        """
        INSERT INTO signing_keys (kid, sealed_private_key, kek_fingerprint, created_at)
        VALUES (\(key.kid), \(ByteBuffer(bytes: key.sealedPrivateKey)), \(key.keyEncryptionKeyFingerprint), \(key.createdAt))
        """
    }

    /// Deletes every key but the newest `count`, clear or sealed.
    private static func deleteBeyond(_ count: Int) -> SQL {
        "DELETE FROM signing_keys WHERE kid NOT IN (SELECT kid FROM signing_keys ORDER BY created_at DESC, kid LIMIT \(count))"
    }

    /// The newest `limit` sealed keys (all when nil), newest first.
    private static func newest(_ limit: Int?) -> SQL {
        """
        SELECT kid, sealed_private_key, kek_fingerprint, created_at FROM signing_keys
        WHERE sealed_private_key IS NOT NULL ORDER BY created_at DESC, kid LIMIT \(limit)
        """
    }

    private static func keys(in rows: PostgresRowSequence) async throws -> [SealedSigningKey] {
        var keys: [SealedSigningKey] = []
        for try await (kid, sealed, fingerprint, createdAt) in rows.decode((String, ByteBuffer, String, Date).self) {
            keys.append(
                SealedSigningKey(
                    kid: kid, sealedPrivateKey: Data(buffer: sealed), keyEncryptionKeyFingerprint: fingerprint, createdAt: createdAt))
        }
        return keys
    }
}
