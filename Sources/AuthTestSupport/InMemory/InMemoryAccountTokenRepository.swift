import AuthCore
import Foundation
import Synchronization

/// Account tokens and the outbox in memory, behaving as the PostgreSQL tables do: digests
/// only, one use, a token and its message written together (under one lock), messages of
/// a deleted account skipped.
///
/// ```swift
/// let storage = InMemoryStorage()
/// let owner = try await storage.accountTokens.owner(ofTokenHash: digest, purpose: .passwordReset, now: Date())
/// ```
public final class InMemoryAccountTokenRepository: AccountTokenRepository {
    struct Token {
        var purpose: AccountTokenPurpose
        var userID: UUID
        var email: String?
        var expiresAt: Date
        var usedAt: Date?
    }

    struct Message {
        var id: Int64
        var kind: DeliveryKind
        var userID: UUID
        var email: String?
        var sealedToken: Data?
        var createdAt: Date
        var expiresAt: Date
        var nextAttemptAt: Date
        var attempts = 0
        var deliveredAt: Date?
        var abandonedAt: Date?
        var lastError: String?
    }

    struct State {
        var tokens: [String: Token] = [:]
        var messages: [Message] = []
        var nextID: Int64 = 1
    }

    let state = Mutex(State())
    let users: InMemoryUserRepository
    let refreshTokens: InMemoryRefreshTokenRepository

    /// An empty repository over the accounts and sessions it changes.
    public init(users: InMemoryUserRepository, refreshTokens: InMemoryRefreshTokenRepository) {
        self.users = users
        self.refreshTokens = refreshTokens
    }

    public func issue(_ issue: AccountTokenIssue) async throws -> User? {
        guard
            let user = users.first(where: { user in
                !user.isDisabled && Self.names(issue.account, user) && (issue.purpose != .emailVerification || user.email != nil)
            })
        else { return nil }
        if let address = issue.address, users.first(where: { $0.email?.lowercased() == address.key }) != nil { return nil }
        let email = issue.address?.value ?? user.email
        state.withLock { state in
            state.tokens[issue.tokenHash] = Token(purpose: issue.purpose, userID: user.id, email: email, expiresAt: issue.expiresAt)
            state.messages.append(
                Message(
                    id: state.nextID, kind: DeliveryKind(issue.purpose), userID: user.id, email: email, sealedToken: issue.sealedToken,
                    createdAt: issue.createdAt, expiresAt: issue.expiresAt, nextAttemptAt: issue.createdAt
                )
            )
            state.nextID += 1
        }
        return user
    }

    /// Whether `selector` names `user`, as the SQL's condition does.
    static func names(_ selector: AccountSelector, _ user: User) -> Bool {
        switch selector {
        case .username(let name): user.usernameKey == name.key
        case .email(let address): user.email?.lowercased() == address.key
        case .id(let id): user.id == id
        }
    }

    public func owner(ofTokenHash tokenHash: String, purpose: AccountTokenPurpose, now: Date) async throws -> UUID? {
        state.withLock { state in
            guard let token = state.tokens[tokenHash], token.purpose == purpose, token.usedAt == nil, token.expiresAt > now else {
                return nil
            }
            return token.userID
        }
    }

    public func resetPassword(tokenHash: String, passwordHash: String, now: Date) async throws -> (user: User, revoked: Int)? {
        let owner = state.withLock { state -> UUID? in
            guard let token = state.tokens[tokenHash], token.purpose == .passwordReset, token.usedAt == nil, token.expiresAt > now else {
                return nil
            }
            for (hash, other) in state.tokens
            where other.userID == token.userID && Self.endedByPassword.contains(other.purpose) && other.usedAt == nil {
                state.tokens[hash]?.usedAt = now
            }
            return token.userID
        }
        guard let owner, let user = users.update(id: owner, { $0.passwordHash = passwordHash }) else { return nil }
        return (user, try await refreshTokens.revokeAll(ofUser: owner, now: now))
    }

    public func setPassword(_ change: PasswordChange) async throws -> (user: User, revoked: Int)? {
        let user = users.update(id: change.userID) { user in
            guard change.replacing.map({ user.passwordHash == $0 && !user.isDisabled }) ?? true else { return }
            user.passwordHash = change.passwordHash
        }
        guard let user, user.passwordHash == change.passwordHash else { return nil }
        state.withLock { state in
            for (hash, token) in state.tokens
            where token.userID == change.userID && Self.endedByPassword.contains(token.purpose) && token.usedAt == nil {
                state.tokens[hash]?.usedAt = change.now
            }
        }
        return (user, try await refreshTokens.revokeAll(ofUser: change.userID, now: change.now))
    }

    /// The tokens a password set uses up: a reset link, and a change of address asked
    /// before it (by whoever held the session then).
    static let endedByPassword: Set<AccountTokenPurpose> = [.passwordReset, .emailChange]

    public func verifyEmail(tokenHash: String, now: Date) async throws -> (user: User, changed: Bool)? {
        let token = state.withLock { state -> Token? in
            guard let token = state.tokens[tokenHash], token.usedAt == nil, token.expiresAt > now else { return nil }
            switch token.purpose {
            case .emailVerification:
                guard users.first(where: { $0.id == token.userID })?.email == token.email else { return nil }
            case .emailChange:
                let key = token.email?.lowercased()
                guard users.first(where: { $0.id != token.userID && $0.email?.lowercased() == key }) == nil else { return nil }
                for (hash, other) in state.tokens where other.userID == token.userID && other.purpose == .emailChange && other.usedAt == nil
                {
                    state.tokens[hash]?.usedAt = now
                }
            case .passwordReset:
                return nil
            }
            state.tokens[tokenHash]?.usedAt = now
            return token
        }
        guard let token else { return nil }
        let changed = token.purpose == .emailChange
        let user = users.update(id: token.userID) { user in
            if changed {
                user.email = token.email
                user.emailVerifiedAt = now
            } else {
                user.emailVerifiedAt = user.emailVerifiedAt ?? now
            }
        }
        return user.map { ($0, changed) }
    }

    public func deleteEnded(before date: Date, limit: Int) async throws -> Int {
        state.withLock { state in
            let ended = state.tokens.filter { $0.value.expiresAt < date || ($0.value.usedAt.map { $0 < date } ?? false) }.keys.prefix(limit)
            for hash in ended { state.tokens[hash] = nil }
            return ended.count
        }
    }
}
