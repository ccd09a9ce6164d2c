import AuthCore
import Foundation
import NIOCore
import PostgresNIO

/// Identities, links waiting for confirmation and used ID tokens (migration 0027).
///
/// ```swift
/// let identities = PostgresIdentityRepository(database: database)
/// let linked = try await identities.link(identity)
/// ```
public struct PostgresIdentityRepository: IdentityRepository {
    /// The database.
    public let database: Database

    /// Creates the repository.
    public init(database: Database) {
        self.database = database
    }

    private typealias Row = (UUID, UUID, String, String, String?, Date, Date, String?)
    private static let columns: SQL = "id, user_id, provider, subject, email, created_at, last_used_at, name"

    private static func identity(_ row: Row) -> Identity {
        Identity(
            id: row.0, userID: row.1, provider: row.2, subject: row.3, email: row.4, name: row.7, createdAt: row.5, lastUsedAt: row.6)
    }

    public func identity(provider: String, subject: String) async throws -> Identity? {
        try await identities("SELECT \(Self.columns) FROM identities WHERE provider = \(provider) AND subject = \(subject)").first
    }

    public func identities(ofUser userID: UUID) async throws -> [Identity] {
        try await identities("SELECT \(Self.columns) FROM identities WHERE user_id = \(userID) ORDER BY created_at, id")
    }

    private func identities(_ query: SQL) async throws -> [Identity] {
        try await database.query(query) { rows in
            var found: [Identity] = []
            for try await row in rows.decode(Row.self) { found.append(Self.identity(row)) }
            return found
        }
    }

    public func link(_ identity: Identity) async throws -> Bool {
        try await database.countingChanges(
            """
            INSERT INTO identities (id, user_id, provider, subject, email, name, created_at, last_used_at)
            VALUES (\(identity.id), \(identity.userID), \(identity.provider), \(identity.subject), \(identity.email),
                \(identity.name), \(identity.createdAt), \(identity.lastUsedAt))
            ON CONFLICT (provider, subject) DO NOTHING
            """
        ) == 1
    }

    public func recordUse(id: UUID, email: String?, name: String?, at: Date) async throws {
        try await database.execute(
            "UPDATE identities SET last_used_at = \(at), email = coalesce(\(email), email), name = coalesce(\(name), name) WHERE id = \(id)"
        )
    }

    public func unlink(id: UUID, ofUser userID: UUID, emailCounts: Bool) async throws -> UnlinkOutcome {
        // The account's row is locked first, so two unlinks (or an unlink and a passkey's
        // removal) of one account are decided one after the other.
        let outcome: (Row?, Bool)? = try await database.query(
            """
            WITH account AS (SELECT id, has_password, email_verified_at FROM users WHERE id = \(userID) FOR UPDATE),
                 target AS (SELECT \(Self.columns) FROM identities WHERE id = \(id) AND user_id IN (SELECT id FROM account)),
                 other_way AS (
                     SELECT (SELECT has_password FROM account)
                         OR (\(emailCounts) AND (SELECT email_verified_at IS NOT NULL FROM account))
                         OR EXISTS (SELECT 1 FROM passkeys WHERE user_id = \(userID))
                         OR EXISTS (SELECT 1 FROM identities WHERE user_id = \(userID) AND id <> \(id)) AS ok
                 ),
                 removed AS (DELETE FROM identities WHERE id IN (SELECT id FROM target) AND (SELECT ok FROM other_way) RETURNING id)
            SELECT target.id, target.user_id, target.provider, target.subject, target.email, target.created_at, target.last_used_at,
                   target.name, EXISTS (SELECT 1 FROM removed)
            FROM target
            """
        ) { rows in
            for try await row in rows.decode((UUID, UUID, String, String, String?, Date, Date, String?, Bool).self) {
                return ((row.0, row.1, row.2, row.3, row.4, row.5, row.6, row.7), row.8)
            }
            return nil
        }
        guard let (row, removed) = outcome, let row else { return .notFound }
        return removed ? .unlinked(Self.identity(row)) : .lastWayIn
    }

    public func markUsed(digest: Data, until: Date) async throws -> Bool {
        try await database.countingChanges(
            "INSERT INTO used_id_tokens (digest, expires_at) VALUES (\(digest), \(until)) ON CONFLICT (digest) DO NOTHING") == 1
    }

    public func storePending(_ link: PendingIdentityLink) async throws {
        let sealed = link.refreshToken.map { ByteBuffer(bytes: $0.sealed) }
        try await database.execute(
            """
            INSERT INTO pending_identity_links
                (token_hash, user_id, provider, subject, email, name, sealed_refresh_token, refresh_client_id, expires_at)
            VALUES (\(link.tokenHash), \(link.userID), \(link.provider), \(link.subject), \(link.email), \(link.name), \(sealed),
                \(link.refreshToken?.clientID), \(link.expiresAt))
            """
        )
    }

    public func takePending(tokenHash: String, now: Date) async throws -> PendingIdentityLink? {
        // Taken by expiring it with its refresh token moved out (answered from the row as it
        // was): deleted, its trigger would queue that token for revocation. Retention deletes
        // the row later.
        try await database.query(
            """
            UPDATE pending_identity_links AS link SET expires_at = '-infinity', sealed_refresh_token = NULL
            FROM (SELECT token_hash, sealed_refresh_token FROM pending_identity_links WHERE token_hash = \(tokenHash) FOR UPDATE) AS was
            WHERE link.token_hash = was.token_hash AND link.expires_at > \(now)
            RETURNING link.token_hash, link.user_id, link.provider, link.subject, link.email, link.name, was.sealed_refresh_token,
                link.refresh_client_id
            """
        ) { rows in
            for try await row in rows.decode((String, UUID, String, String, String?, String?, ByteBuffer?, String?).self) {
                let token = row.6.flatMap { sealed in row.7.map { SealedRefreshToken(sealed: Data(buffer: sealed), clientID: $0) } }
                return PendingIdentityLink(
                    tokenHash: row.0, userID: row.1, provider: row.2, subject: row.3, email: row.4, name: row.5, refreshToken: token,
                    expiresAt: now)
            }
            return nil
        }
    }

    public func storeRefreshToken(provider: String, subject: String, sealedToken: Data, clientID: String) async throws {
        try await database.execute(
            """
            UPDATE identities SET sealed_refresh_token = \(ByteBuffer(bytes: sealedToken)), refresh_client_id = \(clientID)
            WHERE provider = \(provider) AND subject = \(subject)
            """)
    }

    public func claimRevocations(limit: Int, now: Date, leaseUntil: Date) async throws -> [ProviderRevocation] {
        try await database.query(
            """
            UPDATE provider_revocations SET next_attempt_at = \(leaseUntil), attempts = attempts + 1
            WHERE id = ANY(ARRAY(
                SELECT id FROM provider_revocations
                WHERE revoked_at IS NULL AND abandoned_at IS NULL AND next_attempt_at <= \(now)
                ORDER BY next_attempt_at LIMIT \(limit) FOR UPDATE SKIP LOCKED
            ))
            RETURNING id, provider, subject, client_id, user_id, sealed_token, created_at, attempts
            """
        ) { rows in
            var claimed: [ProviderRevocation] = []
            for try await (id, provider, subject, clientID, userID, sealed, createdAt, attempts)
                in rows.decode((Int64, String, String, String, UUID?, ByteBuffer?, Date, Int).self)
            {
                guard let sealed else { continue }
                claimed.append(
                    ProviderRevocation(
                        id: id, provider: provider, subject: subject, clientID: clientID, userID: userID, sealedToken: Data(buffer: sealed),
                        createdAt: createdAt, attempts: attempts))
            }
            return claimed
        }
    }

    public func markRevoked(_ id: Int64, at: Date) async throws {
        try await database.execute(
            "UPDATE provider_revocations SET revoked_at = \(at), sealed_token = NULL, last_error = NULL WHERE id = \(id)")
    }

    public func retryRevocation(_ id: Int64, next: Date, error: String) async throws {
        try await database.execute(
            "UPDATE provider_revocations SET next_attempt_at = \(next), last_error = \(error) WHERE id = \(id) AND revoked_at IS NULL")
    }

    public func abandonRevocation(_ id: Int64, at: Date, error: String) async throws {
        try await database.execute(
            """
            UPDATE provider_revocations SET abandoned_at = \(at), sealed_token = NULL, last_error = \(error)
            WHERE id = \(id) AND revoked_at IS NULL
            """)
    }

    public func deleteExpired(before date: Date, limit: Int) async throws -> Int {
        let tokens = try await database.countingChanges(
            """
            DELETE FROM used_id_tokens WHERE digest = ANY(ARRAY(
                SELECT digest FROM used_id_tokens WHERE expires_at < \(date) LIMIT \(limit) FOR UPDATE SKIP LOCKED
            ))
            """
        )
        let links = try await database.countingChanges(
            """
            DELETE FROM pending_identity_links WHERE token_hash = ANY(ARRAY(
                SELECT token_hash FROM pending_identity_links WHERE expires_at < \(date) LIMIT \(limit) FOR UPDATE SKIP LOCKED
            ))
            """
        )
        let revocations = try await database.countingChanges(
            """
            DELETE FROM provider_revocations WHERE id = ANY(ARRAY(
                SELECT id FROM provider_revocations WHERE revoked_at < \(date) OR abandoned_at < \(date)
                LIMIT \(limit) FOR UPDATE SKIP LOCKED
            ))
            """
        )
        return tokens + links + revocations
    }
}
