import AuthCore
import Foundation
import PostgresNIO

/// Authorization codes in `authorization_codes` (migration 0024).
///
/// ```swift
/// let codes = PostgresAuthorizationCodeRepository(database: database)
/// let found = try await codes.redeem(codeHash: OpaqueToken.hash(of: code), now: Date())
/// ```
public struct PostgresAuthorizationCodeRepository: AuthorizationCodeRepository {
    /// The database.
    public let database: Database

    /// Creates the repository.
    public init(database: Database) {
        self.database = database
    }

    public func add(_ code: AuthorizationCode) async throws {
        try await database.execute(
            """
            INSERT INTO authorization_codes (code_hash, client_id, user_id, redirect_uri, scopes, nonce, code_challenge, auth_time,
                methods, expires_at, browser_session)
            VALUES (\(code.codeHash), \(code.clientID), \(code.userID), \(code.redirectURI), \(code.scopes), \(code.nonce),
                \(code.codeChallenge), \(code.authTime), \(code.methods), \(code.expiresAt), \(code.browserSession))
            """
        )
    }

    private typealias Row = (Date?, String, UUID, String, [String], String?, String?, Date, [String], Date, UUID?, UUID?)

    /// One statement: the row is locked, read as it was and marked used, so a second
    /// redemption waits for the first and then sees it used.
    public func redeem(codeHash: String, now: Date) async throws -> AuthorizationCodeRedemption {
        try await database.query(
            """
            UPDATE authorization_codes AS c SET used_at = coalesce(c.used_at, \(now))
            FROM (SELECT code_hash, used_at FROM authorization_codes WHERE code_hash = \(codeHash) FOR UPDATE) AS previous
            WHERE c.code_hash = previous.code_hash
            RETURNING previous.used_at, c.client_id, c.user_id, c.redirect_uri, c.scopes, c.nonce, c.code_challenge, c.auth_time,
                c.methods, c.expires_at, c.session_id, c.browser_session
            """
        ) { rows in
            for try await row in rows.decode(Row.self) {
                if row.0 != nil { return .replayed(sessionID: row.10, userID: row.2) }
                return .redeemed(
                    AuthorizationCode(
                        codeHash: codeHash, clientID: row.1, userID: row.2, redirectURI: row.3, scopes: row.4, nonce: row.5,
                        codeChallenge: row.6, authTime: row.7, methods: row.8, expiresAt: row.9, browserSession: row.11))
            }
            return .unknown
        }
    }

    public func deleteEnded(before date: Date, limit: Int) async throws -> Int {
        try await database.countingChanges(
            """
            DELETE FROM authorization_codes WHERE code_hash = ANY(ARRAY(
                SELECT code_hash FROM authorization_codes WHERE expires_at < \(date) LIMIT \(limit) FOR UPDATE SKIP LOCKED
            ))
            """
        )
    }

    public func attach(session: UUID, toCodeHash codeHash: String) async throws {
        try await database.execute("UPDATE authorization_codes SET session_id = \(session) WHERE code_hash = \(codeHash)")
    }
}
