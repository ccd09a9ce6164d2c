/// What a delivered message is: a token for the owner to use (a reset, a verification), or a
/// notice that tells the owner what happened to the account and carries no token.
///
/// ```swift
/// DeliveryKind.passkeyAdded.rawValue          // "passkey_added", the body's `kind`
/// DeliveryKind.passwordReset.tokenPurpose     // .passwordReset
/// ```
public enum DeliveryKind: String, Sendable, CaseIterable {
    /// A password-reset token.
    case passwordReset = "password_reset"
    /// An email-verification token.
    case emailVerification = "email_verification"
    /// A token that makes the new address it is sent to the account's.
    case emailChange = "email_change"
    /// A sign-in code and the token its link carries.
    case emailSignIn = "email_sign_in"
    /// A change of the account's address to another was asked (sent to the address it has).
    case emailChangeRequested = "email_change_requested"
    /// Someone signed up with this account's address: the new account was made without it,
    /// and the sign-up's answer did not say so (the owner hears it here instead).
    case accountAlreadyExists = "account_already_exists"
    /// A TOTP second factor was confirmed on the account.
    case totpEnabled = "totp_enabled"
    /// A passkey was registered on the account.
    case passkeyAdded = "passkey_added"

    /// The kind of a token's message.
    public init(_ purpose: AccountTokenPurpose) {
        switch purpose {
        case .passwordReset: self = .passwordReset
        case .emailVerification: self = .emailVerification
        case .emailChange: self = .emailChange
        case .emailSignIn: self = .emailSignIn
        }
    }

    /// The token's purpose, nil for a notice.
    public var tokenPurpose: AccountTokenPurpose? {
        switch self {
        case .passwordReset: .passwordReset
        case .emailVerification: .emailVerification
        case .emailChange: .emailChange
        case .emailSignIn: .emailSignIn
        case .accountAlreadyExists, .emailChangeRequested, .totpEnabled, .passkeyAdded: nil
        }
    }
}
