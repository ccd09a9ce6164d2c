import Foundation

/// Sends the revocations queued when an identity with a provider's refresh token went (an
/// unlink, the account deleted, the provider removed) or a newer token replaced it: what
/// App Store guideline 5.1.1(v) asks of Sign in with Apple at account deletion. The queue is
/// written by the same transaction as the delete (a trigger), so nothing is lost; each
/// instance claims due rows with a lease, and a failure is tried again after 1 s, 2 s, 4 s, …
/// up to 5 minutes, for ``giveUpAfter`` (a provider removed, or without a revocation
/// endpoint, is given up at once). Each outcome is audited; the sealed token is erased once
/// revoked or given up.
///
/// ```swift
/// let revocations = ProviderTokenRevocations(storage: storage, endpoint: endpoint)
/// try await revocations.runOnce()   // what the server's periodic task calls
/// ```
public struct ProviderTokenRevocations<Storage: AuthStorage>: Sendable {
    /// The queue, the providers and the audit log.
    public let storage: Storage
    /// Where revocations are sent.
    public let endpoint: ProviderTokenEndpoint
    /// The time source.
    public let clock: any WallClock
    /// How long a revocation is tried, seconds (3 days).
    public let giveUpAfter: TimeInterval
    /// How long a claim holds its rows: past it, another sender takes them.
    public static var lease: TimeInterval { 60 }

    /// Creates the service.
    public init(
        storage: Storage, endpoint: ProviderTokenEndpoint, clock: any WallClock = SystemClock(), giveUpAfter: TimeInterval = 259_200
    ) {
        self.storage = storage
        self.endpoint = endpoint
        self.clock = clock
        self.giveUpAfter = giveUpAfter
    }

    /// Sends what is due, up to 20; returns how many were revoked.
    @discardableResult
    public func runOnce() async throws -> Int {
        let now = clock.now
        var revoked = 0
        for due in try await storage.identities.claimRevocations(limit: 20, now: now, leaseUntil: now.addingTimeInterval(Self.lease)) {
            if try await send(due) { revoked += 1 }
        }
        return revoked
    }

    private func send(_ due: ProviderRevocation) async throws -> Bool {
        guard let provider = try await storage.providers.provider(named: due.provider) else {
            try await abandon(due, reason: "the provider was removed")
            return false
        }
        guard provider.metadata.revocationEndpoint != nil else {
            try await abandon(due, reason: "the provider has no revocation endpoint")
            return false
        }
        let token: String
        do {
            token = try endpoint.openRefreshToken(due.sealedToken, provider: due.provider, subject: due.subject)
        } catch {
            try await abandon(due, reason: "the sealed token does not open with this key-encryption key")
            return false
        }
        let now = clock.now
        do {
            try await endpoint.revoke(refreshToken: token, clientID: due.clientID, at: provider)
        } catch {
            let reason = (error as? FederationError).map { "\($0)" } ?? "\(type(of: error))"
            if now.timeIntervalSince(due.createdAt) >= giveUpAfter {
                try await abandon(due, reason: reason)
            } else {
                let wait = min(300, pow(2, Double(max(0, due.attempts - 1))))
                try await storage.identities.retryRevocation(due.id, next: now.addingTimeInterval(wait), error: reason)
            }
            return false
        }
        try await storage.identities.markRevoked(due.id, at: now)
        try await storage.audit.record(SecurityEvent(kind: .providerTokenRevoked, at: now, userID: due.userID, detail: due.provider))
        return true
    }

    private func abandon(_ due: ProviderRevocation, reason: String) async throws {
        let now = clock.now
        try await storage.identities.abandonRevocation(due.id, at: now, error: reason)
        try await storage.audit.record(
            SecurityEvent(kind: .providerRevocationAbandoned, at: now, userID: due.userID, detail: "\(due.provider): \(reason)"))
    }
}
