import AuthCore
import Foundation
import Synchronization

/// Refresh tokens in memory, by hash, for tests that need no database. Rotation follows
/// the rules of the PostgreSQL function `rotate_refresh_token`; whether an owner is
/// disabled is asked of `users`.
///
/// ```swift
/// let tokens = InMemoryRefreshTokenRepository()
/// tokens.records.count   // 0
/// ```
public final class InMemoryRefreshTokenRepository: RefreshTokenRepository {
    private struct Entry {
        var record: RefreshTokenRecord
        var used = false
        var revoked = false
    }

    private let stored = Mutex<[String: Entry]>([:])
    private let users: InMemoryUserRepository?

    /// An empty repository; `users` tells which owners are disabled (none when nil).
    public init(users: InMemoryUserRepository? = nil) {
        self.users = users
    }

    public func store(_ record: RefreshTokenRecord) async throws {
        stored.withLock { $0[record.tokenHash] = Entry(record: record) }
    }

    public func rotate(presentedHash: String, successor: RefreshSuccessor, now: Date) async throws -> RefreshRotation {
        guard let owner = stored.withLock({ $0[presentedHash]?.record.userID }) else { return .unknown }
        var ownerDisabled = false
        if let users {
            // A deleted account's tokens went with it, as ON DELETE CASCADE does in PostgreSQL.
            guard let account = try await users.user(withID: owner) else { return .unknown }
            ownerDisabled = account.isDisabled
        }
        return stored.withLock { tokens in
            guard let entry = tokens[presentedHash] else { return .unknown }
            let family = entry.record.familyID
            if entry.used {
                for (hash, other) in tokens where other.record.familyID == family { tokens[hash]?.revoked = true }
                return .reused(userID: owner)
            }
            if entry.revoked { return .revoked }
            if entry.record.expiresAt <= now { return .expired }
            if ownerDisabled { return .disabled(userID: owner) }
            tokens[presentedHash]?.used = true
            tokens[successor.tokenHash] = Entry(
                record: RefreshTokenRecord(tokenHash: successor.tokenHash, familyID: family, userID: owner, expiresAt: successor.expiresAt)
            )
            return .rotated(userID: owner)
        }
    }

    public func revokeFamily(ofTokenHash tokenHash: String, now: Date) async throws -> UUID? {
        stored.withLock { tokens in
            guard let record = tokens[tokenHash]?.record else { return nil }
            for (hash, other) in tokens where other.record.familyID == record.familyID { tokens[hash]?.revoked = true }
            return record.userID
        }
    }

    /// Everything stored, by token hash.
    public var records: [String: RefreshTokenRecord] { stored.withLock { $0.mapValues(\.record) } }
}
