import Foundation

/// An account's authenticator app, as stored: the key sealed, and whether its first code
/// turned it on.
///
/// ```swift
/// if let factor = try await storage.secondFactors.totpFactor(userID: user.id), factor.isConfirmed { … }
/// ```
public struct TOTPFactor: Sendable, Equatable {
    /// The account.
    public var userID: UUID
    /// The key, sealed by ``SecretSealer`` (purpose `totp-secrets`, bound to the account id).
    public var sealedSecret: Data
    /// When the enrolment began.
    public var createdAt: Date
    /// When its first code turned it on; nil while the enrolment waits for that code.
    public var confirmedAt: Date?
    /// The time step of the last code accepted: that step and earlier ones are refused.
    public var lastUsedStep: Int64?

    /// Whether TOTP is on (a login then asks for a code).
    public var isConfirmed: Bool { confirmedAt != nil }

    /// Creates the value.
    public init(userID: UUID, sealedSecret: Data, createdAt: Date, confirmedAt: Date? = nil, lastUsedStep: Int64? = nil) {
        self.userID = userID
        self.sealedSecret = sealedSecret
        self.createdAt = createdAt
        self.confirmedAt = confirmedAt
        self.lastUsedStep = lastUsedStep
    }
}
