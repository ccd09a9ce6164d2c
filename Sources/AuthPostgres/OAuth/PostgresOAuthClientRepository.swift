import AuthCore
import Foundation
import PostgresNIO

/// Relying parties in `oauth_clients` (migrations 0016, 0020, 0023): secrets as SHA-256 only;
/// the revoked `jti`s of their own tokens in `revoked_client_tokens` (0031).
///
/// ```swift
/// let clients = PostgresOAuthClientRepository(database: database)
/// let added = try await clients.add(client)
/// ```
public struct PostgresOAuthClientRepository: OAuthClientRepository {
    /// The database.
    public let database: Database

    /// Creates the repository.
    public init(database: Database) {
        self.database = database
    }

    private typealias Row = (String, String, [String], Date, Bool, [String], [String], Bool, Bool, [String], String)

    public func add(_ client: OAuthClient) async throws -> Bool {
        let signIn = client.signIn
        return try await database.countingChanges(
            """
            INSERT INTO oauth_clients (id, secret_hash, audiences, created_at, trusted_introspector,
                redirect_uris, post_logout_redirect_uris, public, first_party, scopes, id_token_alg)
            VALUES (\(client.id), \(client.secretHash), \(client.audiences), \(client.createdAt), \(client.trustedIntrospector),
                \(signIn.redirectURIs.map(\.text)), \(signIn.postLogoutRedirectURIs.map(\.text)), \(signIn.isPublic),
                \(signIn.firstParty), \(signIn.scopes), \(signIn.idTokenAlgorithm.rawValue))
            ON CONFLICT (id) DO NOTHING
            """
        ) == 1
    }

    public func client(id: String) async throws -> OAuthClient? {
        try await database.query("SELECT \(Self.columns) FROM oauth_clients WHERE id = \(id)") { rows in
            for try await row in rows.decode(Row.self) { return Self.client(row) }
            return nil
        }
    }

    public func all() async throws -> [OAuthClient] {
        try await database.query("SELECT \(Self.columns) FROM oauth_clients ORDER BY id") { rows in
            var clients: [OAuthClient] = []
            for try await row in rows.decode(Row.self) { clients.append(Self.client(row)) }
            return clients
        }
    }

    public func remove(id: String) async throws -> Bool {
        try await database.countingChanges("DELETE FROM oauth_clients WHERE id = \(id)") == 1
    }

    public func revokeToken(jti: String, of clientID: String, expiresAt: Date) async throws {
        _ = try await database.countingChanges(
            """
            INSERT INTO revoked_client_tokens (jti, client_id, expires_at) VALUES (\(jti), \(clientID), \(expiresAt))
            ON CONFLICT (jti) DO NOTHING
            """
        )
    }

    public func isTokenRevoked(jti: String) async throws -> Bool {
        try await database.query("SELECT 1 FROM revoked_client_tokens WHERE jti = \(jti)") { rows in
            for try await _ in rows { return true }
            return false
        }
    }

    public func deleteExpiredRevocations(before date: Date, limit: Int) async throws -> Int {
        try await database.countingChanges(
            """
            DELETE FROM revoked_client_tokens WHERE jti = ANY(ARRAY(
                SELECT jti FROM revoked_client_tokens WHERE expires_at < \(date) LIMIT \(limit) FOR UPDATE SKIP LOCKED
            ))
            """
        )
    }

    private static let columns: SQL = """
        id, secret_hash, audiences, created_at, trusted_introspector, redirect_uris, post_logout_redirect_uris, public, first_party, scopes,
        id_token_alg
        """

    private static func client(_ row: Row) -> OAuthClient {
        let signIn = OIDCClientSettings(
            checked: row.5.map(RedirectURI.init(stored:)), row.6.map(RedirectURI.init(stored:)), isPublic: row.7, firstParty: row.8,
            scopes: row.9, idTokenAlgorithm: SigningAlgorithm(rawValue: row.10) ?? .rs256)
        return OAuthClient(id: row.0, secretHash: row.1, audiences: row.2, createdAt: row.3, trustedIntrospector: row.4, signIn: signIn)
    }
}
