import Foundation

/// Storage of accounts. The rules (validation, hashing, audit) are ``AccountService``'s;
/// a repository only stores. Implementations report an unreachable store as
/// ``AuthError/serviceUnavailable(_:retryAfter:)``.
///
/// ```swift
/// func register(_ users: some UserRepository, name: Username, phc: String) async throws -> User {
///     try await users.create(username: name, passwordHash: phc, at: Date())
/// }
/// ```
public protocol UserRepository: Sendable {
    /// The user whose ``Username/key`` is `key`, if any.
    func user(withKey key: String) async throws -> User?
    /// The user with `id`, if any.
    func user(withID id: UUID) async throws -> User?
    /// Creates an account created at `at`, with an unverified email address if one is
    /// given. Throws ``RepositoryError/duplicateUsername`` when the name is taken, and
    /// ``RepositoryError/duplicateEmail`` when the address is another account's (both
    /// compared case-insensitively).
    func create(username: Username, email: EmailAddress?, passwordHash: String, at: Date) async throws -> User
    /// The user whose email address's key (``EmailAddress/key``) is `key`, verified or not.
    func user(withEmailKey key: String) async throws -> User?
    /// Creates an account with no password of its own, made by a provider sign-in:
    /// `passwordHash` is of a secret nobody holds, and the account is marked as having none
    /// (a password set later marks it as having one). The email is verified as of
    /// `emailVerifiedAt` when given. Throws as ``create(username:email:passwordHash:at:)``.
    func createWithoutPassword(username: Username, email: EmailAddress?, emailVerifiedAt: Date?, passwordHash: String, at: Date)
        async throws -> User
    /// Takes the address whose key is `key` from the account that holds it unverified (the
    /// address was never proved that account's); the account, nil when none held it so.
    func releaseUnverifiedEmail(key: String) async throws -> User?
    /// Replaces the password hash of `userID` if it is still `old` (a re-hash after login).
    func replacePasswordHash(userID: UUID, old: String, new: String) async throws
    /// Disables (as of `at`, unless already disabled) or enables an account; returns it as it
    /// now is, nil when no such user exists.
    func setDisabled(_ disabled: Bool, usernameKey: String, at: Date) async throws -> User?
    /// Deletes an account and, with it, its refresh tokens; returns what was deleted, nil
    /// when no such user exists.
    func delete(usernameKey: String) async throws -> User?
    /// Deletes the account `checked` names if it still has the password hash the check saw
    /// and is enabled (a reset or a disabling since wins); returns what was deleted, nil
    /// (deleting nothing) otherwise.
    func delete(_ checked: CheckedAccount) async throws -> User?
    /// Deletes the account `checked` names if, as ``delete(_:)``, it is as the check saw it,
    /// and it has no password of its own (one a provider sign-in made): nil, deleting
    /// nothing, otherwise.
    func deleteWithoutPassword(_ checked: CheckedAccount) async throws -> User?
    /// All accounts, ordered by creation.
    func all() async throws -> [User]
    /// The distinct Argon2id parameters of the stored password hashes (hashes of other
    /// kinds left out): what a verification may cost, for ``LoginService``'s timing.
    func passwordHashParameters() async throws -> [Argon2idHasher.Parameters]
}

extension UserRepository {
    /// Creates an account without an email address.
    public func create(username: Username, passwordHash: String, at: Date) async throws -> User {
        try await create(username: username, email: nil, passwordHash: passwordHash, at: at)
    }
}
