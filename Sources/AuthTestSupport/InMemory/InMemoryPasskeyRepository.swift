import AuthCore
import Foundation
import Synchronization

/// Passkeys and user handles in memory, behaving as the PostgreSQL tables do: ids unique
/// across accounts, a limit per account, one user handle per account.
///
/// ```swift
/// let storage = InMemoryStorage()
/// let passkeys = try await storage.passkeys.passkeys(ofUser: user.id)
/// ```
public final class InMemoryPasskeyRepository: PasskeyRepository {
    struct State {
        var handles: [UUID: Data] = [:]
        var passkeys: [Passkey] = []
    }

    private let state = Mutex(State())
    private let users: InMemoryUserRepository

    /// An empty repository over the accounts it names.
    public init(users: InMemoryUserRepository) {
        self.users = users
    }

    public func userHandle(ofUser userID: UUID, creating candidate: Data) async throws -> Data? {
        guard try await users.user(withID: userID) != nil else { return nil }
        return state.withLock { state in
            if let handle = state.handles[userID] { return handle }
            state.handles[userID] = candidate
            return candidate
        }
    }

    public func userHandle(ofUser userID: UUID) async throws -> Data? {
        state.withLock { $0.handles[userID] }
    }

    public func passkeys(ofUser userID: UUID) async throws -> [Passkey] {
        state.withLock { $0.passkeys.filter { $0.userID == userID } }
    }

    public func passkey(id: Data) async throws -> Passkey? {
        state.withLock { $0.passkeys.first { $0.id == id } }
    }

    public func add(_ passkey: Passkey, limit: Int) async throws -> Bool {
        state.withLock { state in
            guard !state.passkeys.contains(where: { $0.id == passkey.id }),
                state.passkeys.count(where: { $0.userID == passkey.userID }) < limit
            else { return false }
            state.passkeys.append(passkey)
            return true
        }
    }

    public func recordUse(id: Data, signCount: UInt32, backedUp: Bool, at date: Date) async throws -> Bool {
        state.withLock { state in
            guard let index = state.passkeys.firstIndex(where: { $0.id == id }) else { return false }
            let stored = state.passkeys[index].signCount
            guard stored < signCount || (stored == 0 && signCount == 0) else { return false }
            state.passkeys[index].signCount = signCount
            state.passkeys[index].backedUp = backedUp
            state.passkeys[index].lastUsedAt = date
            return true
        }
    }

    public func commonShape() async throws -> PasskeyShape? {
        let shapes = state.withLock { $0.passkeys.map { PasskeyShape(idLength: $0.id.count, transports: $0.transports) } }
        let counts = shapes.reduce(into: [PasskeyShape: Int]()) { $0[$1, default: 0] += 1 }
        return counts.max { ($0.value, -$0.key.idLength) < ($1.value, -$1.key.idLength) }?.key
    }

    public func delete(id: Data, ofUser userID: UUID) async throws -> Bool {
        state.withLock { state in
            guard let index = state.passkeys.firstIndex(where: { $0.id == id && $0.userID == userID }) else { return false }
            state.passkeys.remove(at: index)
            return true
        }
    }
}
