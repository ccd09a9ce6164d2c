import Foundation

/// Storage of accounts. Implementations report an unreachable store as
/// ``AuthError/serviceUnavailable(_:retryAfter:)``.
///
/// ```swift
/// func register(_ users: some UserRepository, name: Username, phc: String) async throws -> User {
///     try await users.create(username: name, passwordHash: phc)
/// }
/// ```
public protocol UserRepository: Sendable {
    /// The user whose ``Username/key`` is `key`, if any.
    func user(withKey key: String) async throws -> User?
    /// The user with `id`, if any.
    func user(withID id: UUID) async throws -> User?
    /// Creates an account. Throws ``RepositoryError/duplicateUsername`` when the name is taken
    /// (case-insensitively).
    func create(username: Username, passwordHash: String) async throws -> User
    /// Replaces the password hash of `userID` if it is still `old` (a re-hash after login).
    func replacePasswordHash(userID: UUID, old: String, new: String) async throws
    /// Sets the password hash of the user with `usernameKey` and enables the account;
    /// returns false when no such user exists.
    func resetPassword(usernameKey: String, passwordHash: String) async throws -> Bool
    /// Disables or enables an account; returns false when no such user exists.
    func setDisabled(_ disabled: Bool, usernameKey: String) async throws -> Bool
    /// All accounts, ordered by creation.
    func all() async throws -> [User]
}

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

/// Signing keys, kept in storage so several instances share them.
///
/// ```swift
/// let keys = try await store.ensureSigningKey { SigningKey.generate(now: clock.now) }
/// ```
public protocol SigningKeyRepository: Sendable {
    /// The published keys, newest (current) first: the current key and the one before it.
    func publishedKeys() async throws -> [SigningKey]
    /// Returns the published keys, first creating one with `make` if there is none (atomically,
    /// so concurrent first starts create one key).
    func ensureSigningKey(_ make: @Sendable () throws -> SigningKey) async throws -> [SigningKey]
    /// Adds `key` as the new current key.
    func add(_ key: SigningKey) async throws
    /// Every key ever made, newest first (the first ones are published).
    func allKeys() async throws -> [SigningKey]
}

/// Failure counters for login throttling, shared by every instance.
///
/// ```swift
/// if let wait = try await attempts.retryAfter(for: keys, now: now) { throw AuthError.tooManyAttempts(retryAfter: wait) }
/// ```
public protocol LoginAttemptStore: Sendable {
    /// Seconds to wait when any key is over its limit, else nil.
    func retryAfter(for keys: [ThrottleKey], now: Date) async throws -> Int?
    /// Counts one failure against every key.
    func recordFailure(for keys: [ThrottleKey], now: Date) async throws
    /// Clears the counter of `key` (after a successful login).
    func reset(_ key: ThrottleKey) async throws
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

/// A storage failure that is not about availability.
///
/// ```swift
/// catch let error as RepositoryError where error == .duplicateUsername { … }
/// ```
public struct RepositoryError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: Sendable, Equatable {
        case duplicateUsername
    }

    private let kind: Kind

    /// The username is already taken (compared case-insensitively).
    public static let duplicateUsername = RepositoryError(kind: .duplicateUsername)

    /// A one-line explanation.
    public var description: String {
        switch kind {
        case .duplicateUsername: "a user with this name already exists"
        }
    }
}
