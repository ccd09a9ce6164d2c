import AuthCore
import Foundation
import Synchronization

/// Accounts in memory, for tests that need no database. Behaves as the PostgreSQL
/// repository does: names unique by ``AuthCore/Username/key``, re-hash only over the old hash.
///
/// ```swift
/// let users = InMemoryUserRepository()
/// let alice = try await users.create(username: try Username("alice"), passwordHash: phc, at: Date())
/// ```
public final class InMemoryUserRepository: UserRepository {
    private let byKey = Mutex<[String: User]>([:])

    /// An empty repository.
    public init() {}

    public func user(withKey key: String) async throws -> User? {
        byKey.withLock { $0[key] }
    }

    public func user(withID id: UUID) async throws -> User? {
        byKey.withLock { $0.values.first { $0.id == id } }
    }

    public func create(username: Username, email: EmailAddress?, passwordHash: String, at: Date) async throws -> User {
        let user = User(
            id: UUID(), username: username.value, passwordHash: passwordHash, isDisabled: false, createdAt: at, email: email?.value)
        return try byKey.withLock { users in
            guard users[username.key] == nil else { throw RepositoryError.duplicateUsername }
            if let email, users.values.contains(where: { $0.email?.lowercased() == email.key }) { throw RepositoryError.duplicateEmail }
            users[username.key] = user
            return user
        }
    }

    public func replacePasswordHash(userID: UUID, old: String, new: String) async throws {
        byKey.withLock { users in
            guard let key = users.first(where: { $0.value.id == userID && $0.value.passwordHash == old })?.key else { return }
            users[key]?.passwordHash = new
        }
    }

    public func setDisabled(_ disabled: Bool, usernameKey: String, at: Date) async throws -> User? {
        byKey.withLock { users in
            users[usernameKey]?.isDisabled = disabled
            return users[usernameKey]
        }
    }

    public func delete(usernameKey: String) async throws -> User? {
        byKey.withLock { $0.removeValue(forKey: usernameKey) }
    }

    public func delete(_ checked: CheckedAccount) async throws -> User? {
        byKey.withLock { users in
            guard let key = users.first(where: { Self.matches($0.value, checked) })?.key else { return nil }
            return users.removeValue(forKey: key)
        }
    }

    /// Whether the account `checked` names still has its hash and is enabled.
    func isUnchanged(_ checked: CheckedAccount) -> Bool {
        first { Self.matches($0, checked) } != nil
    }

    private static func matches(_ user: User, _ checked: CheckedAccount) -> Bool {
        user.id == checked.userID && user.passwordHash == checked.passwordHash && !user.isDisabled
    }

    public func all() async throws -> [User] {
        byKey.withLock { users in
            users.values.sorted { ($0.createdAt, $0.username.lowercased()) < ($1.createdAt, $1.username.lowercased()) }
        }
    }

    public func passwordHashParameters() async throws -> [Argon2idHasher.Parameters] {
        let sets = byKey.withLock { users in users.values.compactMap { Argon2idHasher.parameters(of: $0.passwordHash) } }
        return sets.reduce(into: []) { unique, set in if !unique.contains(set) { unique.append(set) } }
    }

    /// The first account `predicate` accepts.
    func first(where predicate: (User) -> Bool) -> User? {
        byKey.withLock { $0.values.first(where: predicate) }
    }

    /// Changes the account `id` in place; returns it as it now is.
    func update(id: UUID, _ change: (inout User) -> Void) -> User? {
        byKey.withLock { users in
            guard let key = users.first(where: { $0.value.id == id })?.key, var user = users[key] else { return nil }
            change(&user)
            users[key] = user
            return user
        }
    }
}
