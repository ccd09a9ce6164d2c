import AuthCore
import Synchronization

/// Signing keys in memory, newest first, for tests that need no database.
///
/// ```swift
/// let keys = try await InMemorySigningKeyRepository().ensureSigningKey { SigningKey.generate(now: .now) }
/// ```
public final class InMemorySigningKeyRepository: SigningKeyRepository {
    private let keys = Mutex<[SigningKey]>([])
    private let publishedCount = 2

    /// No keys yet.
    public init() {}

    public func publishedKeys() async throws -> [SigningKey] {
        keys.withLock { Array($0.prefix(publishedCount)) }
    }

    public func ensureSigningKey(_ make: @Sendable () throws -> SigningKey) async throws -> [SigningKey] {
        try keys.withLock { keys in
            if keys.isEmpty { keys.insert(try make(), at: 0) }
            return Array(keys.prefix(publishedCount))
        }
    }

    public func add(_ key: SigningKey) async throws {
        keys.withLock { $0.insert(key, at: 0) }
    }

    public func allKeys() async throws -> [SigningKey] {
        keys.withLock { $0 }
    }
}
