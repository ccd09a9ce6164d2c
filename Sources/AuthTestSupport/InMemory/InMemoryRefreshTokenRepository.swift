import AuthCore
import Synchronization

/// Refresh tokens in memory, by hash, for tests that need no database.
///
/// ```swift
/// let tokens = InMemoryRefreshTokenRepository()
/// tokens.records.count   // 0
/// ```
public final class InMemoryRefreshTokenRepository: RefreshTokenRepository {
    private let stored = Mutex<[String: RefreshTokenRecord]>([:])

    /// An empty repository.
    public init() {}

    public func store(_ record: RefreshTokenRecord) async throws {
        stored.withLock { $0[record.tokenHash] = record }
    }

    /// Everything stored, by token hash.
    public var records: [String: RefreshTokenRecord] { stored.withLock { $0 } }
}
