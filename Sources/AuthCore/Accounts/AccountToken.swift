import Foundation

/// What a single-use account token proves when it comes back.
///
/// ```swift
/// AccountTokenPurpose.passwordReset.rawValue   // "password_reset", also the delivery's `kind`
/// ```
public enum AccountTokenPurpose: String, Sendable, CaseIterable {
    /// `POST /password/reset/confirm` sets a new password with it.
    case passwordReset = "password_reset"
    /// `POST /email/verify` marks the address it was sent to as the owner's.
    case emailVerification = "email_verification"
    /// `POST /email/verify` makes the new address it was sent to the account's, verified.
    case emailChange = "email_change"
    /// `POST /login/email/verify` signs in with it, or with the code derived from it
    /// (``DeliverySealer/code(forTokenHash:)``).
    case emailSignIn = "email_sign_in"
}

/// Which account a token is for: named by its owner (a reset asked by username or by
/// email address), or known (a verification after sign-up).
///
/// ```swift
/// let account = AccountSelector.email(try EmailAddress("alice@example.com"))
/// ```
public enum AccountSelector: Sendable, Equatable {
    /// The account with this username.
    case username(Username)
    /// The account with this email address.
    case email(EmailAddress)
    /// The account with this id.
    case id(UUID)
}

/// A token to issue and the message that carries it, written together: the token's digest
/// (what is stored to check it) and the token sealed for the outbox (what is sent).
///
/// ```swift
/// let fresh = OpaqueToken.generate()
/// let issue = AccountTokenIssue(purpose: .passwordReset, account: .username(name), tokenHash: fresh.hash,
///                               sealedToken: try sealer.seal(fresh.token, purpose: .passwordReset),
///                               createdAt: now, expiresAt: now + 1_800)
/// ```
public struct AccountTokenIssue: Sendable {
    /// What the token is for (and the message's `kind`).
    public var purpose: AccountTokenPurpose
    /// Whose token it is; nothing is issued unless this names an enabled account (and, for a
    /// verification, one with an email address; for a sign-in, one whose address is verified).
    public var account: AccountSelector
    /// ``OpaqueToken/hash(of:)`` of the token.
    public var tokenHash: String
    /// The token sealed by ``DeliverySealer``.
    public var sealedToken: Data
    /// The address the token proves and its message goes to (an email change's new
    /// address; nothing is issued while another account holds it); nil: the account's own.
    public var address: EmailAddress?
    /// When it was issued.
    public var createdAt: Date
    /// When it stops working (and its message is no longer worth sending).
    public var expiresAt: Date

    /// Creates the value.
    public init(
        purpose: AccountTokenPurpose, account: AccountSelector, tokenHash: String, sealedToken: Data, createdAt: Date, expiresAt: Date,
        address: EmailAddress? = nil
    ) {
        self.address = address
        self.purpose = purpose
        self.account = account
        self.tokenHash = tokenHash
        self.sealedToken = sealedToken
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
