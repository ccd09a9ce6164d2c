import Foundation

/// Storage of single-use account tokens (password reset, email verification) and of the
/// outbox rows that carry them: a token and its message are written in one step, so a
/// token is never issued without its message nor a message queued without its token.
/// Tokens are stored as digests only.
///
/// ```swift
/// if let user = try await storage.accountTokens.issue(issue) { print("queued for", user.id) }
/// ```
public protocol AccountTokenRepository: Sendable {
    /// Stores the token and queues its message (due at once), when ``AccountTokenIssue/account``
    /// names an enabled account (with an email address, for a verification) and no account
    /// has ``AccountTokenIssue/address``; returns that account, nil (writing nothing) otherwise.
    func issue(_ issue: AccountTokenIssue) async throws -> User?
    /// The owner of a token that is unused and unexpired at `now`, nil otherwise.
    func owner(ofTokenHash tokenHash: String, purpose: AccountTokenPurpose, now: Date) async throws -> UUID?
    /// Uses a reset token: if it is unused and unexpired, marks it (and the account's other
    /// reset tokens) used, replaces the account's password hash (an account disabled stays
    /// disabled) and ends every session; returns the account and how many sessions ended.
    /// Nil, changing nothing, when the token does not work.
    func resetPassword(tokenHash: String, passwordHash: String, now: Date) async throws -> (user: User, revoked: Int)?
    /// Sets a password without a reset token (``PasswordChange``): replaces the hash (only
    /// while the account still has ``PasswordChange/replacing`` and is enabled, when given;
    /// never enabling or disabling it), uses up every reset and email-change token of the account and ends
    /// every session, in one step; returns the account and how many sessions ended. Nil,
    /// changing nothing, when there is no such account or it is not as the check saw it.
    func setPassword(_ change: PasswordChange) async throws -> (user: User, revoked: Int)?
    /// Uses a verification token — if it is unused, unexpired, and its address is still the
    /// account's, marks it used and the address verified — or an email-change token: if it is
    /// unused, unexpired and no other account has its address, makes that address the
    /// account's, verified, and uses up the account's other changes. Returns the account and
    /// whether its address changed; nil, changing nothing, otherwise.
    func verifyEmail(tokenHash: String, now: Date) async throws -> (user: User, changed: Bool)?
    /// Checks a code against the newest live sign-in token of the account whose verified
    /// address has `emailKey` (unused, unexpired, sent to the address the account still has),
    /// under that token's row lock, so that concurrent guesses are each counted: when
    /// `matches(tokenHash)`, the token is used; otherwise one more wrong try is counted, and
    /// the `maxFailures`-th uses it up.
    func useSignInCode(emailKey: String, now: Date, maxFailures: Int, matches: @escaping @Sendable (String) -> Bool) async throws
        -> SignInCodeOutcome
    /// Uses a sign-in token (its link's), when it is unused, unexpired and its address is
    /// still the account's, verified; the account, or nil changing nothing.
    func useSignInToken(tokenHash: String, now: Date) async throws -> User?
    /// Deletes up to `limit` tokens that expired or were used before `date`; returns how many.
    func deleteEnded(before date: Date, limit: Int) async throws -> Int
}

/// What a sign-in code's check found (``AccountTokenRepository/useSignInCode(emailKey:now:maxFailures:matches:)``).
public enum SignInCodeOutcome: Sendable, Equatable {
    /// The code was right: the token is used, and this is its account.
    case signedIn(User)
    /// The code was wrong: counted against the account's token, which has `attemptsLeft`.
    case wrong(User, attemptsLeft: Int)
    /// No live code for that address.
    case noCode
}
