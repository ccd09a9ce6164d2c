import Foundation

/// Storage of second factors: an account's authenticator app (TOTP) and its recovery codes.
/// Each method is one atomic step, so two requests racing with one code accept it once.
///
/// ```swift
/// if try await storage.secondFactors.useTOTPStep(userID: user.id, step: step) { print("accepted") }
/// ```
public protocol SecondFactorRepository: Sendable {
    /// The account's authenticator app, confirmed or waiting for its first code.
    func totpFactor(userID: UUID) async throws -> TOTPFactor?
    /// Stores a new enrolment's sealed key, replacing one that was never confirmed; false,
    /// storing nothing, when TOTP is already on for the account.
    func beginTOTP(userID: UUID, sealedSecret: Data, now: Date) async throws -> Bool
    /// Turns the waiting enrolment on with its first code's `step` and stores the recovery
    /// codes' digests (replacing any); false, changing nothing, when no enrolment waits.
    func confirmTOTP(userID: UUID, step: Int64, recoveryCodeHashes: [String], now: Date) async throws -> Bool
    /// Records `step` as the last used if TOTP is on and `step` is later than the last one
    /// used; false for a replayed (or earlier) code.
    func useTOTPStep(userID: UUID, step: Int64) async throws -> Bool
    /// Marks the recovery code with this digest used, if the account has it unused.
    func useRecoveryCode(userID: UUID, codeHash: String, now: Date) async throws -> Bool
    /// How many of the account's recovery codes are unused.
    func recoveryCodesLeft(userID: UUID) async throws -> Int
    /// Deletes the account's authenticator app and recovery codes; false when it had none,
    /// or, with `checked`, when the account is no longer as that check saw it (another
    /// password, disabled): a removal proved against an older state changes nothing.
    func deleteTOTP(userID: UUID, whileUnchanged checked: CheckedAccount?) async throws -> Bool
}
