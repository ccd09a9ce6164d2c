import AuthCore
import Foundation
import PostgresNIO

/// Refresh tokens in the `refresh_tokens` table (hashes only) and their sessions in
/// `refresh_families`. Each statement on the tables is written here once; the login's
/// combined statement (``PostgresStorage``) splices in ``insertFamily(_:)`` and
/// ``insert(_:)``.
///
/// ```swift
/// try await PostgresRefreshTokenRepository(database: database).store(record)
/// ```
public struct PostgresRefreshTokenRepository: RefreshTokenRepository {
    /// The database.
    public let database: Database

    /// Creates the repository.
    public init(database: Database) {
        self.database = database
    }

    /// Starts the session `record`'s token opens (a new family), if `condition` holds.
    /// The token's insert may run in the same statement: foreign keys are checked at its end.
    static func insertFamily(_ record: RefreshTokenRecord, when condition: SQL = "true") -> SQL {
        """
        INSERT INTO refresh_families (
            id, user_id, created_at, last_used_at, expires_at, client_address, user_agent, client_id, browser_session, scopes)
        SELECT \(record.familyID), \(record.userID), now(), now(), \(record.sessionExpiresAt), \(record.clientAddress), \(record.userAgent),
            \(record.clientID), \(record.browserSession), \(record.scopes)
        WHERE \(condition)
        """
    }

    /// Stores a newly issued token, if `condition` holds.
    static func insert(_ record: RefreshTokenRecord, when condition: SQL = "true") -> SQL {
        """
        INSERT INTO refresh_tokens (token_hash, family_id, user_id, expires_at)
        SELECT \(record.tokenHash), \(record.familyID), \(record.userID), \(record.expiresAt) WHERE \(condition)
        """
    }

    public func store(_ record: RefreshTokenRecord) async throws {
        try await database.execute("WITH family AS (\(Self.insertFamily(record))) \(Self.insert(record))")
    }

    /// The rotation's call, whose row ``rotation(_:successor:)`` reads.
    static func rotate(presentedHash: String, successor: RefreshSuccessor, now: Date) -> SQL {
        """
        SELECT outcome, owner, granted_until, session, granted_scopes FROM rotate_refresh_token(
            \(presentedHash), \(successor.tokenHash), \(successor.expiresAt), \(now), \(successor.clientID))
        """
    }

    /// The columns of ``rotate(presentedHash:successor:now:)``'s row.
    typealias RotationRow = (String, UUID?, Date?, UUID?, [String]?)

    /// What the rotation's row says.
    static func rotation(_ row: RotationRow, successor: RefreshSuccessor) -> RefreshRotation {
        switch (row.0, row.1, row.3) {
        case ("rotated", let owner?, let session?):
            .rotated(userID: owner, sessionID: session, expiresAt: row.2 ?? successor.expiresAt, scopes: row.4)
        case ("reused", let owner?, _): .reused(userID: owner)
        case ("disabled", let owner?, _): .disabled(userID: owner)
        case ("expired", _, _): .expired
        case ("revoked", _, _): .revoked
        default: .unknown
        }
    }

    public func rotate(presentedHash: String, successor: RefreshSuccessor, now: Date) async throws -> RefreshRotation {
        try await database.query(Self.rotate(presentedHash: presentedHash, successor: successor, now: now)) { rows in
            for try await row in rows.decode(RotationRow.self) { return Self.rotation(row, successor: successor) }
            return .unknown
        }
    }

    /// The family row is what a concurrent rotation holds locked: the UPDATE waits for it,
    /// and a later rotation sees the family revoked. The tokens are marked only after the
    /// family is locked (their UPDATE reads the family's), the order rotation locks in, so
    /// the two never deadlock. The tokens' own `revoked_at` is a record for the operator;
    /// the family's decides.
    public func revokeFamily(ofTokenHash tokenHash: String, now: Date) async throws -> UUID? {
        try await database.query(
            """
            WITH presented AS (SELECT family_id, user_id FROM refresh_tokens WHERE token_hash = \(tokenHash)),
                 family AS (
                     UPDATE refresh_families SET revoked_at = \(now)
                     WHERE id = (SELECT family_id FROM presented) AND revoked_at IS NULL
                     RETURNING id
                 ),
                 tokens AS (
                     UPDATE refresh_tokens SET revoked_at = \(now)
                     WHERE family_id IN (SELECT id FROM family) AND revoked_at IS NULL
                 )
            SELECT user_id FROM presented
            """
        ) { rows in
            for try await owner in rows.decode(UUID.self) { return owner }
            return nil
        }
    }

    public func revokeAll(ofUser userID: UUID, now: Date) async throws -> Int {
        try await revokeFamilies(where: "user_id = \(userID)", now: now)
    }

    public func revokeAll(ofUser userID: UUID, except kept: UUID, now: Date) async throws -> Int {
        try await revokeFamilies(where: "user_id = \(userID) AND id <> \(kept)", now: now)
    }

    public func revokeSession(_ id: UUID, ofUser userID: UUID, now: Date) async throws -> Bool {
        try await revokeFamilies(where: "id = \(id) AND user_id = \(userID) AND expires_at > \(now)", now: now) == 1
    }

    public func revokeBrowserSession(_ id: UUID, ofUser userID: UUID, now: Date) async throws -> Int {
        try await revokeFamilies(where: "(id = \(id) OR browser_session = \(id)) AND user_id = \(userID)", now: now)
    }

    public func status(ofTokenHash tokenHash: String, now: Date) async throws -> RefreshTokenStatus? {
        try await database.query(
            """
            SELECT t.user_id, t.family_id, t.created_at, t.expires_at,
                   t.used_at IS NULL AND t.revoked_at IS NULL AND f.revoked_at IS NULL AND t.expires_at > \(now) AND f.expires_at > \(now)
            FROM refresh_tokens t JOIN refresh_families f ON f.id = t.family_id
            WHERE t.token_hash = \(tokenHash)
            """
        ) { rows in
            for try await (user, family, issued, expires, live) in rows.decode((UUID, UUID, Date, Date, Bool).self) {
                return RefreshTokenStatus(userID: user, sessionID: family, issuedAt: issued, expiresAt: expires, isLive: live)
            }
            return nil
        }
    }

    /// The condition on `refresh_families` of a session live at `now`: not ended, not past its end.
    static func live(at now: Date) -> SQL {
        "revoked_at IS NULL AND expires_at > \(now)"
    }

    public func isSessionLive(_ id: UUID, now: Date) async throws -> Bool {
        try await database.query("SELECT EXISTS (SELECT 1 FROM refresh_families WHERE id = \(id) AND \(Self.live(at: now)))") { rows in
            for try await live in rows.decode(Bool.self) { return live }
            return false
        }
    }

    public func sessions(ofUser userID: UUID, now: Date) async throws -> [Session] {
        try await database.query(
            """
            SELECT id, created_at, last_used_at, client_address, user_agent FROM refresh_families
            WHERE user_id = \(userID) AND \(Self.live(at: now))
            ORDER BY created_at DESC, id
            """
        ) { rows in
            var sessions: [Session] = []
            for try await (id, createdAt, lastUsedAt, address, agent) in rows.decode((UUID, Date, Date, String?, String?).self) {
                sessions.append(Session(id: id, createdAt: createdAt, lastUsedAt: lastUsedAt, clientAddress: address, userAgent: agent))
            }
            return sessions
        }
    }

    /// Revokes the live families `condition` selects, and their tokens; returns how many
    /// families. The families are locked first, as a rotation locks them.
    /// Two common table expressions, `families` (the ids of the sessions ended) and
    /// `tokens`, that end the live sessions matching `condition` and their tokens: spliced
    /// after `WITH` (alone, or with the statements of a password reset).
    static func revokeFamilies(where condition: SQL, now: Date) -> SQL {
        """
        families AS (
            UPDATE refresh_families SET revoked_at = \(now)
            WHERE \(condition) AND revoked_at IS NULL
            RETURNING id
        ),
        tokens AS (
            UPDATE refresh_tokens SET revoked_at = \(now)
            WHERE family_id IN (SELECT id FROM families) AND revoked_at IS NULL
        )
        """
    }

    private func revokeFamilies(where condition: SQL, now: Date) async throws -> Int {
        try await database.query("WITH \(Self.revokeFamilies(where: condition, now: now)) SELECT count(*)::int8 FROM families") { rows in
            for try await count in rows.decode(Int.self) { return count }
            return 0
        }
    }

    public func deleteEnded(before date: Date, limit: Int) async throws -> Int {
        // Tokens first, a batch at a time; rows a rotation holds are skipped, not waited for.
        let tokens = try await database.countingChanges(
            """
            DELETE FROM refresh_tokens WHERE ctid = ANY(ARRAY(
                SELECT t.ctid FROM refresh_tokens t JOIN refresh_families f ON f.id = t.family_id
                WHERE t.expires_at < \(date) OR f.expires_at < \(date) OR f.revoked_at < \(date)
                LIMIT \(limit) FOR UPDATE OF t SKIP LOCKED
            ))
            """
        )
        guard tokens < limit else { return tokens }
        let families = try await database.countingChanges(
            """
            DELETE FROM refresh_families WHERE id = ANY(ARRAY(
                SELECT f.id FROM refresh_families f
                WHERE (f.expires_at < \(date) OR f.revoked_at < \(date))
                  AND NOT EXISTS (SELECT 1 FROM refresh_tokens t WHERE t.family_id = f.id)
                LIMIT \(limit - tokens) FOR UPDATE SKIP LOCKED
            ))
            """
        )
        return tokens + families
    }
}
