import Foundation

/// Signing keys, kept sealed in storage so several instances share them. Which keys are
/// current, published or deleted is ``KeyService``'s rule; the repository keeps them in
/// order and sees only sealed bytes (a clear private key only in a row an authd before
/// sealing wrote, until ``KeyService/sealUnsealedKeys()`` seals it).
///
/// ```swift
/// let newest = try await store.ensureSigningKeys(limit: 2, adding: [try kek.seal(SigningKey.generate(now: clock.now))])
/// ```
///
/// Each ``SigningAlgorithm`` keeps keys of its own: "the newest `limit`" counts per algorithm.
public protocol SigningKeyRepository: Sendable {
    /// The newest `limit` sealed keys of each algorithm (every one when nil), newest first.
    func keys(limit: Int?) async throws -> [SealedSigningKey]
    /// Returns the newest `limit` keys of each algorithm, first storing each of `candidates`
    /// whose algorithm has no key, and deletes every key older than those (atomically, so
    /// concurrent first starts store one key of each algorithm).
    func ensureSigningKeys(limit: Int, adding candidates: [SealedSigningKey]) async throws -> [SealedSigningKey]
    /// Adds `keys` (being the newest, they become their algorithms' current keys), deletes
    /// the keys whose ids are in `removing`, then every key beyond the newest `keeping` of its
    /// algorithm; atomically.
    func add(_ keys: [SealedSigningKey], removing kids: [String], keeping: Int) async throws
    /// The keys still stored in clear (written before keys were sealed), newest first.
    func clearKeys() async throws -> [SigningKey]
    /// Stores `sealed` in place of the clear private key of the same `kid`, leaving no
    /// clear copy in the row; does nothing if that key is sealed already.
    func replaceClearKey(with sealed: SealedSigningKey) async throws
    /// Drops the superseded versions of rows whose clear key was replaced, so that the
    /// storage's files hold no clear copy (PostgreSQL: `VACUUM (FREEZE) signing_keys`; its WAL and
    /// earlier backups still do).
    func purgeClearCopies() async throws
}
