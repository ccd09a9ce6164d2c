import Foundation

/// Storage of the accounts' identities at providers, the links waiting for confirmation,
/// the ID tokens already used, and the providers' refresh tokens: kept sealed on their
/// identity, and queued for revocation at the provider when it goes.
///
/// ```swift
/// let identity = try await storage.identities.identity(provider: "google", subject: token.subject)
/// ```
public protocol IdentityRepository: Sendable {
    /// The identity `(provider, subject)`, if an account has it.
    func identity(provider: String, subject: String) async throws -> Identity?
    /// The account's identities, oldest first.
    func identities(ofUser userID: UUID) async throws -> [Identity]
    /// Links `identity`; false, storing nothing, when `(provider, subject)` is linked already.
    func link(_ identity: Identity) async throws -> Bool
    /// Records a sign-in with the identity: when, and the email and name the provider gave
    /// (each kept when nil).
    func recordUse(id: UUID, email: String?, name: String?, at: Date) async throws
    /// Unlinks the account's identity `id`, only if the account keeps a way in: a
    /// password, a passkey, another identity, or (with `emailCounts`) a verified email.
    /// Checked and removed in one step, so two removals at once cannot both pass.
    func unlink(id: UUID, ofUser userID: UUID, emailCounts: Bool) async throws -> UnlinkOutcome
    /// Remembers an ID token as used until it expires; false when it was already.
    func markUsed(digest: Data, until: Date) async throws -> Bool
    /// Stores a link waiting for its confirmation.
    func storePending(_ link: PendingIdentityLink) async throws
    /// Takes the waiting link with this token hash, if it has not expired at `now`: answered
    /// once, with its refresh token, which is no longer the waiting link's to revoke.
    func takePending(tokenHash: String, now: Date) async throws -> PendingIdentityLink?
    /// Keeps `sealedToken`, a refresh token the provider issued to `clientID`, on the
    /// identity `(provider, subject)`; the one it replaces is queued for revocation.
    func storeRefreshToken(provider: String, subject: String, sealedToken: Data, clientID: String) async throws
    /// Claims up to `limit` revocations due at `now`, leasing them until `leaseUntil` (skipping
    /// rows another sender holds) and counting the attempt.
    func claimRevocations(limit: Int, now: Date, leaseUntil: Date) async throws -> [ProviderRevocation]
    /// Records a revocation done: its sealed token is erased.
    func markRevoked(_ id: Int64, at: Date) async throws
    /// Schedules a failed revocation again at `next`.
    func retryRevocation(_ id: Int64, next: Date, error: String) async throws
    /// Gives a revocation up: its sealed token is erased.
    func abandonRevocation(_ id: Int64, at: Date, error: String) async throws
    /// Deletes up to `limit` used-token records and waiting links that expired before
    /// `date`, and revocations done or given up before it; returns how many.
    func deleteExpired(before date: Date, limit: Int) async throws -> Int
}

/// What ``IdentityRepository/unlink(id:ofUser:emailCounts:)`` did.
public enum UnlinkOutcome: Sendable, Equatable {
    /// Unlinked.
    case unlinked(Identity)
    /// The account has no such identity.
    case notFound
    /// It is the account's last way in: kept.
    case lastWayIn
}
