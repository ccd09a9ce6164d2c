import AuthCore
import Foundation
import PostgresNIO

/// Signing keys in the `signing_keys` table.
///
/// ```swift
/// let keys = try await PostgresSigningKeyRepository(database: database)
///     .ensureSigningKey { SigningKey.generate(now: Date()) }
/// ```
public struct PostgresSigningKeyRepository: SigningKeyRepository {
    /// The database.
    public let database: Database
    /// How many keys are published (current plus previous).
    public static let publishedCount = 2

    /// Creates the repository.
    public init(database: Database) {
        self.database = database
    }

    public func publishedKeys() async throws -> [SigningKey] {
        let logger = database.logger
        return try await database.run { client in
            try await client.withConnection { connection in
                try await Self.published(on: connection, logger: logger)
            }
        }
    }

    public func ensureSigningKey(_ make: @Sendable () throws -> SigningKey) async throws -> [SigningKey] {
        let logger = database.logger
        let candidate = try make()
        return try await database.run { client in
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(AdvisoryLock.signingKeys))", logger: logger)
                let existing = try await Self.published(on: connection, logger: logger)
                guard existing.isEmpty else { return existing }
                try await Self.insert(candidate, on: connection, logger: logger)
                return try await Self.published(on: connection, logger: logger)
            }
        }
    }

    public func add(_ key: SigningKey) async throws {
        let logger = database.logger
        try await database.run { client in
            try await client.withConnection { connection in
                try await Self.insert(key, on: connection, logger: logger)
            }
        }
    }

    public func allKeys() async throws -> [SigningKey] {
        let logger = database.logger
        return try await database.run { client in
            try await client.withConnection { connection in
                try await Self.keys(on: connection, limit: Int.max, logger: logger)
            }
        }
    }

    private static func insert(_ key: SigningKey, on connection: PostgresConnection, logger: Logger) async throws {
        let material = ByteBuffer(bytes: key.privateKey)
        try await connection.query(
            "INSERT INTO signing_keys (kid, private_key, created_at) VALUES (\(key.kid), \(material), \(key.createdAt))",
            logger: logger
        )
    }

    private static func published(on connection: PostgresConnection, logger: Logger) async throws -> [SigningKey] {
        try await keys(on: connection, limit: publishedCount, logger: logger)
    }

    private static func keys(on connection: PostgresConnection, limit: Int, logger: Logger) async throws -> [SigningKey] {
        let rows = try await connection.query(
            """
            SELECT kid, private_key, created_at FROM signing_keys
            ORDER BY created_at DESC, kid LIMIT \(limit)
            """,
            logger: logger
        )
        var keys: [SigningKey] = []
        for try await (kid, material, createdAt) in rows.decode((String, ByteBuffer, Date).self) {
            keys.append(SigningKey(kid: kid, privateKey: Data(buffer: material), createdAt: createdAt))
        }
        return keys
    }
}
