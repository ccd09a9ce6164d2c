import AuthCore
import Synchronization

/// Signing keys in memory, newest first, for tests that need no database.
///
/// ```swift
/// let keys = try await InMemorySigningKeyRepository().ensureSigningKey(limit: 2) { SigningKey.generate(now: .now) }
/// ```
public final class InMemorySigningKeyRepository: SigningKeyRepository {
    private let keys = Mutex<[SigningKey]>([])

    /// No keys yet.
    public init() {}

    public func keys(limit: Int?) async throws -> [SigningKey] {
        keys.withLock { Array($0.prefix(limit ?? $0.count)) }
    }

    public func ensureSigningKey(limit: Int, _ make: @Sendable () throws -> SigningKey) async throws -> [SigningKey] {
        try keys.withLock { keys in
            if keys.isEmpty { keys.insert(try make(), at: 0) }
            return Array(keys.prefix(limit))
        }
    }

    public func add(_ key: SigningKey) async throws {
        keys.withLock { $0.insert(key, at: 0) }
    }
}
