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
        var issuedAt: Date
        var used = false
        var revoked = false
    }

    private struct Family {
        let userID: UUID
        let expiresAt: Date
        let createdAt: Date
        var lastUsedAt: Date
        let clientAddress: String?
        let userAgent: String?
        var revokedAt: Date?
        var revoked: Bool { revokedAt != nil }
    }

    private struct State {
        var tokens: [String: Entry] = [:]
        var families: [UUID: Family] = [:]
    }

    private let stored = Mutex(State())
    private let users: InMemoryUserRepository?

    /// An empty repository; `users` tells which owners are disabled (none when nil).
    public init(users: InMemoryUserRepository? = nil) {
        self.users = users
    }

    public func store(_ record: RefreshTokenRecord) async throws {
        stored.withLock {
            // Stamped by the wall clock, as PostgreSQL stamps it with now().
            let now = Date()
            $0.families[record.familyID] = Family(
                userID: record.userID, expiresAt: record.sessionExpiresAt, createdAt: now, lastUsedAt: now,
                clientAddress: record.clientAddress, userAgent: record.userAgent
            )
            $0.tokens[record.tokenHash] = Entry(record: record, issuedAt: now)
        }
    }

    public func rotate(presentedHash: String, successor: RefreshSuccessor, now: Date) async throws -> RefreshRotation {
        guard let owner = stored.withLock({ $0.tokens[presentedHash]?.record.userID }) else { return .unknown }
        var ownerDisabled = false
        if let users {
            // A deleted account's tokens went with it, as ON DELETE CASCADE does in PostgreSQL.
            guard let account = try await users.user(withID: owner) else { return .unknown }
            ownerDisabled = account.isDisabled
        }
        return stored.withLock { state in
            guard let entry = state.tokens[presentedHash], let family = state.families[entry.record.familyID] else { return .unknown }
            let familyID = entry.record.familyID
            if entry.used {
                Self.revoke(familyID, at: now, in: &state)
                return .reused(userID: owner)
            }
            if entry.revoked || family.revoked { return .revoked }
            if entry.record.expiresAt <= now || family.expiresAt <= now { return .expired }
            if ownerDisabled { return .disabled(userID: owner) }
            state.tokens[presentedHash]?.used = true
            let next = RefreshTokenRecord(
                tokenHash: successor.tokenHash, familyID: familyID, userID: owner, expiresAt: successor.expiresAt,
                sessionExpiresAt: family.expiresAt
            )
            state.tokens[successor.tokenHash] = Entry(record: next, issuedAt: now)
            state.families[familyID]?.lastUsedAt = now
            return .rotated(userID: owner, sessionID: familyID, expiresAt: next.expiresAt)
        }
    }

    public func revokeFamily(ofTokenHash tokenHash: String, now: Date) async throws -> UUID? {
        stored.withLock { state in
            guard let record = state.tokens[tokenHash]?.record else { return nil }
            Self.revoke(record.familyID, at: now, in: &state)
            return record.userID
        }
    }

    public func revokeAll(ofUser userID: UUID, now: Date) async throws -> Int {
        revokeFamilies(at: now) { _, family in family.userID == userID }
    }

    public func revokeAll(ofUser userID: UUID, except kept: UUID, now: Date) async throws -> Int {
        revokeFamilies(at: now) { id, family in family.userID == userID && id != kept }
    }

    public func revokeSession(_ id: UUID, ofUser userID: UUID, now: Date) async throws -> Bool {
        revokeFamilies(at: now) { candidate, family in candidate == id && family.userID == userID && family.expiresAt > now } == 1
    }

    public func status(ofTokenHash tokenHash: String, now: Date) async throws -> RefreshTokenStatus? {
        stored.withLock { state in
            guard let entry = state.tokens[tokenHash], let family = state.families[entry.record.familyID] else { return nil }
            let live = !entry.used && !entry.revoked && !family.revoked && entry.record.expiresAt > now && family.expiresAt > now
            return RefreshTokenStatus(
                userID: entry.record.userID, sessionID: entry.record.familyID, issuedAt: entry.issuedAt, expiresAt: entry.record.expiresAt,
                isLive: live
            )
        }
    }

    public func isSessionLive(_ id: UUID, now: Date) async throws -> Bool {
        stored.withLock { state in state.families[id].map { !$0.revoked && $0.expiresAt > now } ?? false }
    }

    public func sessions(ofUser userID: UUID, now: Date) async throws -> [Session] {
        stored.withLock { state in
            state.families.filter { $0.value.userID == userID && !$0.value.revoked && $0.value.expiresAt > now }
                .map {
                    Session(
                        id: $0.key, createdAt: $0.value.createdAt, lastUsedAt: $0.value.lastUsedAt, clientAddress: $0.value.clientAddress,
                        userAgent: $0.value.userAgent)
                }
                .sorted { ($0.createdAt, $1.id.uuidString) > ($1.createdAt, $0.id.uuidString) }
        }
    }

    /// Revokes the live families `chosen` picks; returns how many.
    private func revokeFamilies(at now: Date, _ chosen: (UUID, Family) -> Bool) -> Int {
        stored.withLock { state in
            let live = state.families.filter { !$0.value.revoked && chosen($0.key, $0.value) }.keys
            for id in live { Self.revoke(id, at: now, in: &state) }
            return live.count
        }
    }

    public func deleteEnded(before date: Date, limit: Int) async throws -> Int {
        stored.withLock { state in
            let endedFamilies = Set(
                state.families.filter { $0.value.expiresAt < date || ($0.value.revokedAt.map { $0 < date } ?? false) }.keys)
            let tokens = state.tokens.filter { $0.value.record.expiresAt < date || endedFamilies.contains($0.value.record.familyID) }.keys
                .prefix(limit)
            for hash in tokens { state.tokens.removeValue(forKey: hash) }
            let withTokens = Set(state.tokens.values.map(\.record.familyID))
            let families = endedFamilies.subtracting(withTokens).prefix(limit - tokens.count)
            for id in families { state.families.removeValue(forKey: id) }
            return tokens.count + families.count
        }
    }

    private static func revoke(_ familyID: UUID, at now: Date, in state: inout State) {
        if state.families[familyID]?.revokedAt == nil { state.families[familyID]?.revokedAt = now }
        for (hash, other) in state.tokens where other.record.familyID == familyID { state.tokens[hash]?.revoked = true }
    }

    /// Everything stored, by token hash.
    public var records: [String: RefreshTokenRecord] { stored.withLock { $0.tokens.mapValues(\.record) } }
}
