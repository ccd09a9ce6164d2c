import Foundation

/// A stored account.
///
/// ```swift
/// let user = User(id: UUID(), username: "alice", passwordHash: phc, isDisabled: false, createdAt: .now)
/// ```
public struct User: Sendable, Equatable {
    /// Stable identifier; the `sub` claim of access tokens.
    public var id: UUID
    /// The NFC username as registered.
    public var username: String
    /// The Argon2id PHC string. Never log it.
    public var passwordHash: String
    /// Whether logins are refused (with `account_disabled`, once the password is right).
    public var isDisabled: Bool
    /// When the account was created.
    public var createdAt: Date
    /// The account's email address, if it has one (where password resets may be sent).
    public var email: String?
    /// When the owner proved the address theirs (`POST /email/verify`); nil until then.
    public var emailVerifiedAt: Date?

    /// Creates a user value.
    public init(
        id: UUID, username: String, passwordHash: String, isDisabled: Bool, createdAt: Date, email: String? = nil,
        emailVerifiedAt: Date? = nil
    ) {
        self.id = id
        self.username = username
        self.passwordHash = passwordHash
        self.isDisabled = isDisabled
        self.createdAt = createdAt
        self.email = email
        self.emailVerifiedAt = emailVerifiedAt
    }
}

extension User {
    /// The username's key (its lower-cased form), what throttle counters and the audit log
    /// name the account by; the stored name itself if it no longer parses.
    ///
    /// ```swift
    /// user.usernameKey   // "alice" for "Alice"
    /// ```
    public var usernameKey: String { (try? Username(username))?.key ?? username }
}
