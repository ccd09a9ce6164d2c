import Foundation

/// Storage of ``LoginChallenge``s: stored by digest, read while they work, worn down by
/// wrong answers, taken once.
///
/// ```swift
/// guard let challenge = try await storage.loginChallenges.challenge(tokenHash: hash, kind: .secondFactor, now: now) else { … }
/// ```
public protocol LoginChallengeRepository: Sendable {
    /// Stores a new challenge.
    func store(_ challenge: LoginChallenge) async throws
    /// The challenge with this digest and kind, if unused, unexpired and with attempts left.
    func challenge(tokenHash: String, kind: LoginChallenge.Kind, now: Date) async throws -> LoginChallenge?
    /// Takes one attempt from the challenge with this digest and kind, if it is unused,
    /// unexpired and has one left, before the answer is checked; returns the challenge, nil
    /// when it no longer works. One guarded step: however many answers arrive at once, no
    /// more are checked than it has attempts.
    func reserveAttempt(tokenHash: String, kind: LoginChallenge.Kind, now: Date) async throws -> LoginChallenge?
    /// Marks the challenge used if it is unused and unexpired (an attempt reserved on it may
    /// have been its last), and returns it: once, however many ask at the same time; nil
    /// afterwards, or when it never worked.
    func take(tokenHash: String, kind: LoginChallenge.Kind, now: Date) async throws -> LoginChallenge?
    /// Deletes up to `limit` challenges that expired or were used before `date`; returns how many.
    func deleteEnded(before date: Date, limit: Int) async throws -> Int
}
