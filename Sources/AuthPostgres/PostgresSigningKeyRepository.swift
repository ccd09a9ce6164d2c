import AuthCore
import Foundation
import PostgresNIO

/// Signing keys in the `signing_keys` table.
///
/// ```swift
/// let keys = try await PostgresSigningKeyRepository(database: database)
///     .ensureSigningKey(limit: 2) { SigningKey.generate(now: Date()) }
/// ```
public struct PostgresSigningKeyRepository: SigningKeyRepository {
    /// The database.
    public let database: Database

    /// Creates the repository.
    public init(database: Database) {
        self.database = database
    }

    public func keys(limit: Int?) async throws -> [SigningKey] {
        try await database.query(Self.newest(limit)) { try await Self.keys(in: $0) }
    }

    public func ensureSigningKey(limit: Int, _ make: @Sendable () throws -> SigningKey) async throws -> [SigningKey] {
        let logger = database.logger
        let candidate = try make()
        return try await database.run { client in
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(AdvisoryLock.signingKeys))", logger: logger)
                let existing = try await Self.keys(in: try await connection.query(try Self.newest(limit).query, logger: logger))
                guard existing.isEmpty else { return existing }
                try await connection.query(try Self.insert(candidate).query, logger: logger)
                return try await Self.keys(in: try await connection.query(try Self.newest(limit).query, logger: logger))
            }
        }
    }

    public func add(_ key: SigningKey) async throws {
        try await database.execute(Self.insert(key))
    }

    private static func insert(_ key: SigningKey) -> SQL {
        "INSERT INTO signing_keys (kid, private_key, created_at) VALUES (\(key.kid), \(ByteBuffer(bytes: key.privateKey)), \(key.createdAt))"
    }

    /// The newest `limit` keys (all when nil), newest first.
    private static func newest(_ limit: Int?) -> SQL {
        "SELECT kid, private_key, created_at FROM signing_keys ORDER BY created_at DESC, kid LIMIT \(limit)"
    }

    private static func keys(in rows: PostgresRowSequence) async throws -> [SigningKey] {
        var keys: [SigningKey] = []
        for try await (kid, material, createdAt) in rows.decode((String, ByteBuffer, Date).self) {
            keys.append(SigningKey(kid: kid, privateKey: Data(buffer: material), createdAt: createdAt))
        }
        return keys
    }
}
