import Foundation

/// Stores refresh tokens by their hash only.
///
/// ```swift
/// try await tokens.store(RefreshTokenRecord(tokenHash: hash, familyID: UUID(), userID: user.id, expiresAt: exp))
/// ```
public protocol RefreshTokenRepository: Sendable {
    /// Records a newly issued refresh token.
    func store(_ record: RefreshTokenRecord) async throws
    /// Exchanges the token whose hash is `presentedHash` for `successor`, atomically: of
    /// two concurrent calls with one token exactly one rotates, and the other sees a
    /// reuse. A token already rotated revokes its whole family. A disabled owner changes
    /// nothing.
    func rotate(presentedHash: String, successor: RefreshSuccessor, now: Date) async throws -> RefreshRotation
    /// Revokes the family of the token whose hash is `tokenHash`; returns the owner, or nil
    /// when no such token exists. Revoking a revoked family is not an error.
    func revokeFamily(ofTokenHash tokenHash: String, now: Date) async throws -> UUID?
}

/// A refresh token as stored: its SHA-256, never the token itself.
public struct RefreshTokenRecord: Sendable, Equatable {
    /// Hex SHA-256 of the token.
    public var tokenHash: String
    /// The rotation family the token belongs to.
    public var familyID: UUID
    /// The owner.
    public var userID: UUID
    /// When it stops being accepted.
    public var expiresAt: Date

    /// Creates a record.
    public init(tokenHash: String, familyID: UUID, userID: UUID, expiresAt: Date) {
        self.tokenHash = tokenHash
        self.familyID = familyID
        self.userID = userID
        self.expiresAt = expiresAt
    }
}
