import AuthCore
import Foundation
import PostgresNIO

/// Signing keys in the `signing_keys` table, sealed (`sealed_private_key`,
/// `kek_fingerprint`); `private_key` holds a clear key only in a row written before keys
/// were sealed, until it is sealed in place.
///
/// ```swift
/// let keys = try await PostgresSigningKeyRepository(database: database)
///     .ensureSigningKeys(limit: 2, adding: [try kek.seal(SigningKey.generate(now: Date()))])
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

    public func ensureSigningKeys(limit: Int, adding candidates: [SealedSigningKey]) async throws -> [SealedSigningKey] {
        try await locked { connection, logger in
            let present = Set(
                try await Self.keys(in: try await connection.query(try Self.newest(limit).query, logger: logger)).map(\.algorithm))
            for key in candidates where !present.contains(key.algorithm) {
                try await connection.query(try Self.insert(key).query, logger: logger)
            }
            try await connection.query(try Self.deleteBeyond(limit).query, logger: logger)
            return try await Self.keys(in: try await connection.query(try Self.newest(limit).query, logger: logger))
        }
    }

    public func add(_ keys: [SealedSigningKey], removing kids: [String], keeping: Int) async throws {
        try await locked { connection, logger in
            for key in keys {
                try await connection.query(try Self.insert(key).query, logger: logger)
            }
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
        INSERT INTO signing_keys (kid, algorithm, sealed_private_key, kek_fingerprint, created_at)
        VALUES (\(key.kid), \(key.algorithm.rawValue), \(ByteBuffer(bytes: key.sealedPrivateKey)), \(key.keyEncryptionKeyFingerprint),
            \(key.createdAt))
        """
    }

    /// Deletes every key but the newest `count` of each algorithm, clear or sealed.
    private static func deleteBeyond(_ count: Int) -> SQL {
        """
        DELETE FROM signing_keys WHERE kid IN (
            SELECT kid FROM (
                SELECT kid, row_number() OVER (PARTITION BY algorithm ORDER BY created_at DESC, kid) AS place FROM signing_keys
            ) ranked WHERE place > \(count))
        """
    }

    /// The newest `limit` sealed keys of each algorithm (all when nil), newest first.
    private static func newest(_ limit: Int?) -> SQL {
        """
        SELECT kid, algorithm, sealed_private_key, kek_fingerprint, created_at FROM (
            SELECT *, row_number() OVER (PARTITION BY algorithm ORDER BY created_at DESC, kid) AS place FROM signing_keys
            WHERE sealed_private_key IS NOT NULL
        ) ranked WHERE place <= \(limit ?? Int.max) ORDER BY created_at DESC, kid
        """
    }

    private static func keys(in rows: PostgresRowSequence) async throws -> [SealedSigningKey] {
        var keys: [SealedSigningKey] = []
        for try await (kid, algorithm, sealed, fingerprint, createdAt) in rows.decode((String, String, ByteBuffer, String, Date).self) {
            guard let algorithm = SigningAlgorithm(rawValue: algorithm) else { continue }
            keys.append(
                SealedSigningKey(
                    kid: kid, algorithm: algorithm, sealedPrivateKey: Data(buffer: sealed), keyEncryptionKeyFingerprint: fingerprint,
                    createdAt: createdAt))
        }
        return keys
    }
}
