import Foundation

/// Authorization codes, stored as hashes.
public protocol AuthorizationCodeRepository: Sendable {
    /// Stores a new code.
    func add(_ code: AuthorizationCode) async throws
    /// Marks the code of `codeHash` used, in the same statement that reads it, so that two
    /// redemptions at once cannot both find it fresh.
    func redeem(codeHash: String, now: Date) async throws -> AuthorizationCodeRedemption
    /// Records the session a redeemed code started, so that a replay of the code ends it.
    func attach(session: UUID, toCodeHash codeHash: String) async throws
    /// Deletes up to `limit` codes that expired before `date` (used ones included: a replay
    /// after that is refused as an unknown code); returns how many.
    func deleteEnded(before date: Date, limit: Int) async throws -> Int
}
