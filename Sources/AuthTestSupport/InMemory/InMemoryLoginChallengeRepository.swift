import AuthCore
import Foundation
import Synchronization

/// Login challenges in memory, behaving as the PostgreSQL table does: found by digest
/// while unused, unexpired and with attempts left; taken once.
///
/// ```swift
/// let storage = InMemoryStorage()
/// let challenge = try await storage.loginChallenges.challenge(tokenHash: hash, kind: .secondFactor, now: Date())
/// ```
public final class InMemoryLoginChallengeRepository: LoginChallengeRepository {
    private let challenges = Mutex<[String: (challenge: LoginChallenge, usedAt: Date?)]>([:])

    /// An empty repository.
    public init() {}

    public func store(_ challenge: LoginChallenge) async throws {
        challenges.withLock { $0[challenge.tokenHash] = (challenge, nil) }
    }

    public func challenge(tokenHash: String, kind: LoginChallenge.Kind, now: Date) async throws -> LoginChallenge? {
        challenges.withLock { Self.working($0[tokenHash], kind: kind, now: now) }
    }

    public func reserveAttempt(tokenHash: String, kind: LoginChallenge.Kind, now: Date) async throws -> LoginChallenge? {
        challenges.withLock { all in
            guard var challenge = Self.working(all[tokenHash], kind: kind, now: now) else { return nil }
            challenge.attemptsLeft -= 1
            all[tokenHash]?.challenge = challenge
            return challenge
        }
    }

    public func take(tokenHash: String, kind: LoginChallenge.Kind, now: Date) async throws -> LoginChallenge? {
        challenges.withLock { all in
            guard let challenge = Self.working(all[tokenHash], kind: kind, now: now, attempts: false) else { return nil }
            all[tokenHash]?.usedAt = now
            return challenge
        }
    }

    public func deleteEnded(before date: Date, limit: Int) async throws -> Int {
        challenges.withLock { all in
            let ended = all.filter { ($0.value.usedAt ?? $0.value.challenge.expiresAt) < date }.keys.prefix(limit)
            for key in ended { all[key] = nil }
            return ended.count
        }
    }

    /// The challenge while it is unused, unexpired and (unless `attempts` is false) has attempts left.
    private static func working(
        _ entry: (challenge: LoginChallenge, usedAt: Date?)?, kind: LoginChallenge.Kind, now: Date, attempts: Bool = true
    ) -> LoginChallenge? {
        guard let entry, entry.usedAt == nil, entry.challenge.kind == kind, entry.challenge.expiresAt > now,
            !attempts || entry.challenge.attemptsLeft > 0
        else { return nil }
        return entry.challenge
    }
}
