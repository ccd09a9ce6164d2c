import AuthCore
import Foundation

/// The outbox in memory: the messages ``InMemoryAccountTokenRepository`` queued, claimed
/// and leased as the PostgreSQL outbox does.
///
/// ```swift
/// let due = try await InMemoryStorage().outbox.claim(limit: 10, now: Date(), leaseUntil: Date().addingTimeInterval(30))
/// ```
public struct InMemoryDeliveryOutbox: DeliveryOutbox {
    let tokens: InMemoryAccountTokenRepository

    public func claim(limit: Int, now: Date, leaseUntil: Date) async throws -> [OutboxMessage] {
        let claimed = tokens.state.withLock { state -> [InMemoryAccountTokenRepository.Message] in
            var claimed: [InMemoryAccountTokenRepository.Message] = []
            for index in state.messages.indices where claimed.count < limit {
                let message = state.messages[index]
                guard message.deliveredAt == nil, message.abandonedAt == nil, message.nextAttemptAt <= now else { continue }
                state.messages[index].attempts += 1
                state.messages[index].nextAttemptAt = leaseUntil
                claimed.append(state.messages[index])
            }
            return claimed
        }
        return claimed.compactMap { message in
            guard let user = tokens.users.first(where: { $0.id == message.userID }) else { return nil }
            return OutboxMessage(
                id: message.id, kind: message.kind, userID: user.id, username: user.username, email: message.email,
                sealedToken: message.sealedToken,
                expiresAt: message.expiresAt, attempts: message.attempts
            )
        }
    }

    public func enqueue(_ notice: DeliveryNotice) async throws -> Int {
        let accounts = try await tokens.users.all().filter { !$0.isDisabled && InMemoryAccountTokenRepository.names(notice.account, $0) }
        tokens.state.withLock { state in
            for user in accounts {
                state.messages.append(
                    InMemoryAccountTokenRepository.Message(
                        id: state.nextID, kind: notice.kind, userID: user.id, email: user.email, sealedToken: nil,
                        createdAt: notice.createdAt, expiresAt: notice.expiresAt, nextAttemptAt: notice.createdAt
                    )
                )
                state.nextID += 1
            }
        }
        return accounts.count
    }

    public func markDelivered(_ id: Int64, at: Date) async throws {
        change(id) {
            $0.deliveredAt = at
            $0.sealedToken = nil
            $0.lastError = nil
        }
    }

    public func markFailed(_ id: Int64, reason: String, retryAt: Date) async throws {
        change(id) {
            $0.lastError = reason
            $0.nextAttemptAt = retryAt
        }
    }

    public func abandon(_ id: Int64, reason: String, at: Date) async throws {
        change(id) {
            $0.abandonedAt = at
            $0.sealedToken = nil
            $0.lastError = reason
        }
    }

    public func pendingCount() async throws -> Int {
        tokens.state.withLock { $0.messages.filter { $0.deliveredAt == nil && $0.abandonedAt == nil }.count }
    }

    public func deleteFinished(before date: Date, limit: Int) async throws -> Int {
        tokens.state.withLock { state in
            let finished = state.messages.filter { ($0.deliveredAt ?? $0.abandonedAt).map { $0 < date } ?? false }.prefix(limit).map(\.id)
            state.messages.removeAll { finished.contains($0.id) }
            return finished.count
        }
    }

    private func change(_ id: Int64, _ body: (inout InMemoryAccountTokenRepository.Message) -> Void) {
        tokens.state.withLock { state in
            guard let index = state.messages.firstIndex(where: { $0.id == id }) else { return }
            body(&state.messages[index])
        }
    }
}
