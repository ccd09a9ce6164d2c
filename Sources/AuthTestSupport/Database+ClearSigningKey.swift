import AuthCore
import AuthPostgres
import PostgresNIO

extension Database {
    /// Stores `key` in clear, as an authd from before sealing did (migration 0010): for the
    /// tests of ``AuthCore/KeyService/sealUnsealedKeys()`` and of the first start with a KEK.
    ///
    /// ```swift
    /// try await storage.database.storeClearSigningKey(SigningKey.generate(now: Date()))
    /// ```
    public func storeClearSigningKey(_ key: SigningKey) async throws {
        try await client.query(
            """
            INSERT INTO signing_keys (kid, private_key, created_at)
            VALUES (\(key.kid), \(ByteBuffer(bytes: key.privateKey)), \(key.createdAt))
            """,
            logger: logger
        )
    }
}
