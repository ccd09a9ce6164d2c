import AuthCore
import Synchronization

/// Signing keys in memory, newest first, for tests that need no database; like the
/// PostgreSQL table it holds sealed keys only, except clear ones a test stores with
/// ``storeClearKey(_:)`` as an authd before sealing did.
///
/// ```swift
/// let keys = try await InMemorySigningKeyRepository().ensureSigningKey(limit: 2) { try kek.seal(SigningKey.generate(now: .now)) }
/// ```
public final class InMemorySigningKeyRepository: SigningKeyRepository {
    private enum Row: Sendable {
        case sealed(SealedSigningKey)
        case clear(SigningKey)

        var kid: String {
            switch self {
            case .sealed(let key): key.kid
            case .clear(let key): key.kid
            }
        }
    }

    private let rows = Mutex<[Row]>([])

    /// No keys yet.
    public init() {}

    public func keys(limit: Int?) async throws -> [SealedSigningKey] {
        rows.withLock { Self.sealed(in: $0, limit: limit) }
    }

    public func ensureSigningKey(limit: Int, _ make: @Sendable () throws -> SealedSigningKey) async throws -> [SealedSigningKey] {
        try rows.withLock { rows in
            if rows.isEmpty { rows.insert(.sealed(try make()), at: 0) }
            rows = Array(rows.prefix(limit))
            return Self.sealed(in: rows, limit: limit)
        }
    }

    public func add(_ key: SealedSigningKey, removing kids: [String], keeping: Int) async throws {
        rows.withLock { rows in
            rows.insert(.sealed(key), at: 0)
            rows = Array(rows.filter { !kids.contains($0.kid) }.prefix(keeping))
        }
    }

    public func clearKeys() async throws -> [SigningKey] {
        rows.withLock { rows in
            rows.compactMap { if case .clear(let key) = $0 { key } else { nil } }
        }
    }

    public func replaceClearKey(with sealed: SealedSigningKey) async throws {
        rows.withLock { rows in
            for index in rows.indices {
                if case .clear(let key) = rows[index], key.kid == sealed.kid { rows[index] = .sealed(sealed) }
            }
        }
    }

    /// Nothing to purge: a replaced row leaves no copy in memory.
    public func purgeClearCopies() async throws {}

    /// Stores `key` in clear, newest, as an authd before sealing did (for tests of
    /// ``AuthCore/KeyService/sealUnsealedKeys()``).
    public func storeClearKey(_ key: SigningKey) {
        rows.withLock { $0.insert(.clear(key), at: 0) }
    }

    private static func sealed(in rows: [Row], limit: Int?) -> [SealedSigningKey] {
        let sealed = rows.compactMap { if case .sealed(let key) = $0 { key } else { nil } }
        return Array(sealed.prefix(limit ?? sealed.count))
    }
}
