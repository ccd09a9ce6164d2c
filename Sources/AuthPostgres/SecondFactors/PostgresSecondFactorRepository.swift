import AuthCore
import Foundation
import NIOCore
import PostgresNIO

/// Authenticator apps in `totp_factors` and recovery codes in `recovery_codes` (migration
/// 0014). Each operation is one statement: a step or a code is taken by the row update
/// that checks it, so two requests racing with one code accept it once.
///
/// ```swift
/// let factors = PostgresSecondFactorRepository(database: database)
/// let factor = try await factors.totpFactor(userID: id)
/// ```
public struct PostgresSecondFactorRepository: SecondFactorRepository {
    /// The database.
    public let database: Database

    /// Creates the repository.
    public init(database: Database) {
        self.database = database
    }

    public func totpFactor(userID: UUID) async throws -> TOTPFactor? {
        try await database.query(
            "SELECT sealed_secret, created_at, confirmed_at, last_used_step FROM totp_factors WHERE user_id = \(userID)"
        ) { rows in
            for try await (sealed, createdAt, confirmedAt, step) in rows.decode((ByteBuffer, Date, Date?, Int64?).self) {
                return TOTPFactor(
                    userID: userID, sealedSecret: Data(buffer: sealed), createdAt: createdAt, confirmedAt: confirmedAt, lastUsedStep: step
                )
            }
            return nil
        }
    }

    public func beginTOTP(userID: UUID, sealedSecret: Data, now: Date) async throws -> Bool {
        try await database.countingChanges(
            """
            INSERT INTO totp_factors (user_id, sealed_secret, created_at) VALUES (\(userID), \(ByteBuffer(bytes: sealedSecret)), \(now))
            ON CONFLICT (user_id) DO UPDATE SET sealed_secret = excluded.sealed_secret, created_at = excluded.created_at,
                last_used_step = NULL
            WHERE totp_factors.confirmed_at IS NULL
            """
        ) == 1
    }

    public func confirmTOTP(userID: UUID, step: Int64, recoveryCodeHashes: [String], now: Date) async throws -> Bool {
        try await database.query(
            """
            WITH factor AS (
                     UPDATE totp_factors SET confirmed_at = \(now), last_used_step = \(step)
                     WHERE user_id = \(userID) AND confirmed_at IS NULL
                     RETURNING user_id
                 ),
                 dropped AS (DELETE FROM recovery_codes WHERE user_id IN (SELECT user_id FROM factor)),
                 codes AS (
                     INSERT INTO recovery_codes (user_id, code_hash)
                     SELECT f.user_id, c.hash FROM factor f CROSS JOIN unnest(\(recoveryCodeHashes)::text[]) AS c(hash)
                 )
            SELECT count(*)::int8 FROM factor
            """
        ) { rows in
            for try await count in rows.decode(Int.self) { return count == 1 }
            return false
        }
    }

    public func useTOTPStep(userID: UUID, step: Int64) async throws -> Bool {
        try await database.countingChanges(
            """
            UPDATE totp_factors SET last_used_step = \(step)
            WHERE user_id = \(userID) AND confirmed_at IS NOT NULL AND (last_used_step IS NULL OR last_used_step < \(step))
            """
        ) == 1
    }

    public func useRecoveryCode(userID: UUID, codeHash: String, now: Date) async throws -> Bool {
        try await database.countingChanges(
            "UPDATE recovery_codes SET used_at = \(now) WHERE user_id = \(userID) AND code_hash = \(codeHash) AND used_at IS NULL"
        ) == 1
    }

    public func recoveryCodesLeft(userID: UUID) async throws -> Int {
        try await database.query("SELECT count(*)::int8 FROM recovery_codes WHERE user_id = \(userID) AND used_at IS NULL") { rows in
            for try await count in rows.decode(Int.self) { return count }
            return 0
        }
    }

    public func deleteTOTP(userID: UUID, whileUnchanged checked: CheckedAccount?) async throws -> Bool {
        let account: SQL = checked.map { PostgresUserRepository.unchanged($0) } ?? "id = \(userID)"
        return try await database.query(
            """
            WITH factor AS (
                     DELETE FROM totp_factors WHERE user_id = \(userID) AND user_id IN (SELECT id FROM users WHERE \(account) FOR SHARE)
                     RETURNING user_id
                 ),
                 codes AS (DELETE FROM recovery_codes WHERE user_id IN (SELECT user_id FROM factor))
            SELECT count(*)::int8 FROM factor
            """
        ) { rows in
            for try await count in rows.decode(Int.self) { return count == 1 }
            return false
        }
    }
}
