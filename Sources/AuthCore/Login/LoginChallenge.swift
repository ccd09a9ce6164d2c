import Foundation

/// A short-lived, single-use step of a login that began elsewhere, stored as the digest of
/// what the client holds: the `mfa_token` a right password earns when a second factor is on,
/// or a WebAuthn challenge (its base64url form) a passkey ceremony must sign.
///
/// ```swift
/// let token = OpaqueToken.generate()
/// let challenge = LoginChallenge(tokenHash: token.hash, kind: .secondFactor, userID: user.id,
///                                passwordHash: user.passwordHash, createdAt: now, expiresAt: now + 300, attemptsLeft: 5)
/// ```
public struct LoginChallenge: Sendable, Equatable {
    /// What the challenge is for.
    public enum Kind: String, Sendable {
        /// The second step of a password login (`POST /login/mfa`).
        case secondFactor = "second_factor"
        /// A passkey registration (`POST /webauthn/register`): the WebAuthn challenge.
        case passkeyRegistration = "passkey_registration"
        /// A passkey login (`POST /webauthn/login`): the WebAuthn challenge.
        case passkeyAuthentication = "passkey_authentication"
    }

    /// How long an `mfa_token` or a passkey ceremony's challenge works, seconds.
    public static let lifetime = 300
    /// How many wrong codes one `mfa_token` survives.
    public static let secondFactorAttempts = 5

    /// ``OpaqueToken/hash(of:)`` of the token.
    public var tokenHash: String
    /// What it is for.
    public var kind: Kind
    /// The account, when known.
    public var userID: UUID?
    /// The password hash the first step checked: the challenge dies if the account's
    /// password changes before the second step.
    public var passwordHash: String?
    /// When it was issued.
    public var createdAt: Date
    /// When it stops working.
    public var expiresAt: Date
    /// Wrong answers it still survives.
    public var attemptsLeft: Int

    /// Creates the value.
    public init(
        tokenHash: String, kind: Kind, userID: UUID?, passwordHash: String?, createdAt: Date, expiresAt: Date, attemptsLeft: Int
    ) {
        self.tokenHash = tokenHash
        self.kind = kind
        self.userID = userID
        self.passwordHash = passwordHash
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.attemptsLeft = attemptsLeft
    }
}
