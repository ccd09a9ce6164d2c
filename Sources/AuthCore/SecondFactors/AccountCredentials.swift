import Foundation

/// What an account signs in with beyond its password, as an operator sees it
/// (`authd user credentials NAME`): never a secret, only states, names and dates.
///
/// ```swift
/// let credentials = try await accounts.credentials(username: "alice")
/// credentials.totp?.isConfirmed   // true once the app's first code turned it on
/// ```
public struct AccountCredentials: Sendable, Equatable {
    /// The account.
    public var user: User
    /// Its authenticator app, confirmed or waiting for its first code.
    public var totp: TOTPFactor?
    /// Its unused recovery codes.
    public var recoveryCodesLeft: Int
    /// Its passkeys, oldest first.
    public var passkeys: [Passkey]

    /// Creates the value.
    public init(user: User, totp: TOTPFactor?, recoveryCodesLeft: Int, passkeys: [Passkey] = []) {
        self.user = user
        self.totp = totp
        self.recoveryCodesLeft = recoveryCodesLeft
        self.passkeys = passkeys
    }
}
