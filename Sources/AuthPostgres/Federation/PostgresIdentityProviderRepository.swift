import AuthCore
import Foundation
import PostgresNIO

/// Upstream providers in `identity_providers` (migration 0027): secrets sealed, the
/// discovery document's parts as JSON.
///
/// ```swift
/// let providers = PostgresIdentityProviderRepository(database: database)
/// let google = try await providers.provider(named: "google")
/// ```
public struct PostgresIdentityProviderRepository: IdentityProviderRepository {
    /// The database.
    public let database: Database

    /// Creates the repository.
    public init(database: Database) {
        self.database = database
    }

    private typealias Row = (String, String, String, [String], Data?, String?, String?, Data?, [String], Bool, String, Date)

    private static let columns: SQL = """
        name, kind, issuer, client_ids, sealed_client_secret, apple_team_id, apple_key_id, sealed_apple_private_key, scopes,
        create_accounts, metadata::text, created_at
        """

    public func add(_ provider: IdentityProvider, replacing: Bool) async throws -> Bool {
        let metadata = String(decoding: try JSONEncoder().encode(provider.metadata), as: UTF8.self)
        let conflict: SQL =
            replacing
            ? """
            ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, issuer = excluded.issuer, client_ids = excluded.client_ids,
                sealed_client_secret = excluded.sealed_client_secret, apple_team_id = excluded.apple_team_id,
                apple_key_id = excluded.apple_key_id, sealed_apple_private_key = excluded.sealed_apple_private_key,
                scopes = excluded.scopes, create_accounts = excluded.create_accounts, metadata = excluded.metadata,
                created_at = excluded.created_at
            """ : "ON CONFLICT (name) DO NOTHING"
        return try await database.countingChanges(
            """
            INSERT INTO identity_providers (name, kind, issuer, client_ids, sealed_client_secret, apple_team_id, apple_key_id,
                sealed_apple_private_key, scopes, create_accounts, metadata, created_at)
            VALUES (\(provider.name), \(provider.kind.rawValue), \(provider.issuer), \(provider.clientIDs), \(provider.sealedClientSecret),
                \(provider.apple?.teamID), \(provider.apple?.keyID), \(provider.apple?.sealedPrivateKey), \(provider.scopes),
                \(provider.createsAccounts), \(metadata)::jsonb, \(provider.createdAt))
            \(conflict)
            """
        ) == 1
    }

    public func provider(named name: String) async throws -> IdentityProvider? {
        try await database.query("SELECT \(Self.columns) FROM identity_providers WHERE name = \(name)") { rows in
            for try await row in rows.decode(Row.self) { return Self.provider(row) }
            return nil
        }
    }

    public func all() async throws -> [IdentityProvider] {
        try await database.query("SELECT \(Self.columns) FROM identity_providers ORDER BY name") { rows in
            var providers: [IdentityProvider] = []
            for try await row in rows.decode(Row.self) {
                if let provider = Self.provider(row) { providers.append(provider) }
            }
            return providers
        }
    }

    public func remove(named name: String) async throws -> Int? {
        try await database.query(
            """
            WITH removed AS (DELETE FROM identity_providers WHERE name = \(name) RETURNING name)
            SELECT (SELECT count(*) FROM identities WHERE provider IN (SELECT name FROM removed)) FROM removed
            """
        ) { rows in
            for try await count in rows.decode(Int.self) { return count }
            return nil
        }
    }

    private static func provider(_ row: Row) -> IdentityProvider? {
        guard let kind = IdentityProvider.Kind(rawValue: row.1),
            let metadata = try? JSONDecoder().decode(ProviderMetadata.self, from: Data(row.10.utf8))
        else { return nil }
        let apple = row.5.flatMap { team in
            row.6.flatMap { key in row.7.map { IdentityProvider.AppleSigning(teamID: team, keyID: key, sealedPrivateKey: $0) } }
        }
        return IdentityProvider(
            name: row.0, kind: kind, issuer: row.2, clientIDs: row.3, sealedClientSecret: row.4, apple: apple, scopes: row.8,
            createsAccounts: row.9, metadata: metadata, createdAt: row.11)
    }
}
