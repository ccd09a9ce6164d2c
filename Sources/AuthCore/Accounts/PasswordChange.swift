import Foundation

/// A new password for an account and what comes with it, written in one step: the hash
/// replaced, every outstanding reset link used up and every session ended.
///
/// With ``replacing``, the change is made on the strength of a check of the current
/// password, and only while the account is as that check saw it: the hash it matched still
/// stored, the account still enabled. A reset or a disabling that came between the check and
/// the write (however slowly the request's body arrived) wins, and nothing changes.
///
/// ```swift
/// let checked = try await login.confirmPassword(of: user, password: current, origin: origin)
/// let change = PasswordChange(userID: user.id, passwordHash: newHash, replacing: checked.passwordHash, now: clock.now)
/// guard let (user, ended) = try await storage.accountTokens.setPassword(change) else { throw AuthError.invalidCredentials }
/// ```
public struct PasswordChange: Sendable, Equatable {
    /// The account.
    public var userID: UUID
    /// The new PHC string.
    public var passwordHash: String
    /// The hash the presented current password matched; nil for an operator's reset, which
    /// needs no check (and never enables or disables the account either).
    public var replacing: String?
    /// When: the sessions' and reset links' end.
    public var now: Date

    /// Creates a change.
    public init(userID: UUID, passwordHash: String, replacing: String?, now: Date) {
        self.userID = userID
        self.passwordHash = passwordHash
        self.replacing = replacing
        self.now = now
    }
}

/// An account as a check of its owner's secret (a password, a code) saw it: what a write made
/// on the strength of that check requires still to hold — the same password hash, the account
/// enabled. Made by ``LoginService/confirmPassword(of:password:origin:)`` and from the account
/// a request's token names.
///
/// ```swift
/// let checked = try await login.confirmPassword(of: user, password: body.password, origin: origin)
/// guard try await storage.users.delete(checked) != nil else { throw AuthError.invalidCredentials }
/// ```
public struct CheckedAccount: Sendable, Equatable {
    /// The account.
    public var userID: UUID
    /// Its password hash when it was checked.
    public var passwordHash: String

    /// The account `user` as it was read.
    public init(_ user: User) {
        self.init(userID: user.id, passwordHash: user.passwordHash)
    }

    /// The account `userID` with `passwordHash`.
    public init(userID: UUID, passwordHash: String) {
        self.userID = userID
        self.passwordHash = passwordHash
    }
}
