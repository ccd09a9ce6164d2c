import AuthCore
import AuthPostgres
import AuthServer
import Logging

extension DatabaseOptions {
    /// Runs `body` with the database and the key-encryption key that seals its signing
    /// keys (``KeyEncryptionKeyOptions``). With a database URL and no KEK given it fails
    /// before connecting; with the embedded cluster it falls back on the cluster's KEK file.
    func withSealedDatabase<T>(
        _ keyEncryption: KeyEncryptionKeyOptions,
        logger: Logger,
        _ body: (DatabaseTarget, KeyEncryptionKey) async throws -> T
    ) async throws -> T {
        let given = try keyEncryption.givenKey()
        if given == nil, url != nil { throw KeyEncryptionKeyOptions.missing }
        return try await withDatabaseAndCluster(logger: logger) { target, cluster in
            let key: KeyEncryptionKey
            if let given {
                key = given
            } else if let cluster {
                key = try KeyEncryptionKeyOptions.embeddedKey(in: cluster.directory) { path in
                    logger.notice(
                        "created the key-encryption key file of the embedded cluster; back it up with the database",
                        metadata: ["path": "\(path)"]
                    )
                }
            } else {
                throw KeyEncryptionKeyOptions.missing
            }
            return try await KeyEncryptionKeyOptions.reportingSealingErrors { try await body(target, key) }
        }
    }

    /// Runs `body` with the signing-key rules on the migrated database (whose operations seal
    /// any key still stored in clear, once they have checked the KEK).
    func withKeys<T: Sendable>(
        _ keyEncryption: KeyEncryptionKeyOptions,
        logger: Logger,
        _ body: @escaping @Sendable (KeyService<PostgresStorage>) async throws -> T
    ) async throws -> T {
        try await withSealedDatabase(keyEncryption, logger: logger) { target, key in
            try await Self.withMigratedStorage(target: target, logger: logger) { storage in
                try await body(KeyService(storage: storage, keyEncryptionKey: key))
            }
        }
    }

    /// Runs `body` with the provider rules on the migrated database, their secrets sealed
    /// under the KEK and their discovery documents fetched over HTTP. An
    /// ``AuthCore/AuthError`` or a ``AuthCore/FederationError`` becomes a one-line CLI error.
    func withProviders<T: Sendable>(
        _ keyEncryption: KeyEncryptionKeyOptions,
        logger: Logger,
        _ body: @escaping @Sendable (ProviderRegistry<PostgresStorage>) async throws -> T
    ) async throws -> T {
        let client = HTTPDeliveryTransport.makeClient()
        do {
            let result = try await withSealedDatabase(keyEncryption, logger: logger) { target, key in
                try await Self.withMigratedStorage(target: target, logger: logger) { storage in
                    try await body(
                        ProviderRegistry(storage: storage, transport: HTTPProviderTransport(client: client), keyEncryptionKey: key))
                }
            }
            try await client.shutdown()
            return result
        } catch let error as AuthError {
            try? await client.shutdown()
            throw CLIError(error.description)
        } catch let error as FederationError {
            try? await client.shutdown()
            throw CLIError(error.description)
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}
