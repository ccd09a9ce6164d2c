import AuthCore
import Foundation
import Synchronization

/// Authenticator apps and recovery codes in memory, behaving as the PostgreSQL tables do:
/// one app per account, each step and each recovery code accepted once.
///
/// ```swift
/// let storage = InMemoryStorage()
/// let factor = try await storage.secondFactors.totpFactor(userID: user.id)
/// ```
public final class InMemorySecondFactorRepository: SecondFactorRepository {
    struct State {
        var factors: [UUID: TOTPFactor] = [:]
        /// Per account, each code's digest and whether it was used.
        var recoveryCodes: [UUID: [String: Bool]] = [:]
    }

    private let state = Mutex(State())
    private let users: InMemoryUserRepository

    /// An empty repository beside `users` (whose state a guarded removal checks).
    public init(users: InMemoryUserRepository) {
        self.users = users
    }

    public func totpFactor(userID: UUID) async throws -> TOTPFactor? {
        state.withLock { $0.factors[userID] }
    }

    public func beginTOTP(userID: UUID, sealedSecret: Data, now: Date) async throws -> Bool {
        state.withLock { state in
            guard state.factors[userID]?.isConfirmed != true else { return false }
            state.factors[userID] = TOTPFactor(userID: userID, sealedSecret: sealedSecret, createdAt: now)
            return true
        }
    }

    public func confirmTOTP(userID: UUID, step: Int64, recoveryCodeHashes: [String], now: Date) async throws -> Bool {
        state.withLock { state in
            guard let factor = state.factors[userID], !factor.isConfirmed else { return false }
            state.factors[userID]?.confirmedAt = now
            state.factors[userID]?.lastUsedStep = step
            state.recoveryCodes[userID] = Dictionary(uniqueKeysWithValues: recoveryCodeHashes.map { ($0, false) })
            return true
        }
    }

    public func useTOTPStep(userID: UUID, step: Int64) async throws -> Bool {
        state.withLock { state in
            guard let factor = state.factors[userID], factor.isConfirmed, factor.lastUsedStep.map({ $0 < step }) ?? true else {
                return false
            }
            state.factors[userID]?.lastUsedStep = step
            return true
        }
    }

    public func useRecoveryCode(userID: UUID, codeHash: String, now: Date) async throws -> Bool {
        state.withLock { state in
            guard state.recoveryCodes[userID]?[codeHash] == false else { return false }
            state.recoveryCodes[userID]?[codeHash] = true
            return true
        }
    }

    public func recoveryCodesLeft(userID: UUID) async throws -> Int {
        state.withLock { $0.recoveryCodes[userID]?.values.count { !$0 } ?? 0 }
    }

    public func deleteTOTP(userID: UUID, whileUnchanged checked: CheckedAccount?) async throws -> Bool {
        if let checked, !users.isUnchanged(checked) { return false }
        return state.withLock { state in
            state.recoveryCodes[userID] = nil
            return state.factors.removeValue(forKey: userID) != nil
        }
    }
}
