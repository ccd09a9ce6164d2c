import Foundation

/// Signing keys, kept in storage so several instances share them. Which keys are current,
/// published or retired is ``KeyService``'s rule; the repository keeps them in order.
///
/// ```swift
/// let newest = try await store.ensureSigningKey(limit: 2) { SigningKey.generate(now: clock.now) }
/// ```
public protocol SigningKeyRepository: Sendable {
    /// The newest `limit` keys (every key when nil), newest first.
    func keys(limit: Int?) async throws -> [SigningKey]
    /// Returns the newest `limit` keys, first storing one made by `make` if there is none
    /// (atomically, so concurrent first starts store one key).
    func ensureSigningKey(limit: Int, _ make: @Sendable () throws -> SigningKey) async throws -> [SigningKey]
    /// Adds `key`; being the newest, it becomes the current key.
    func add(_ key: SigningKey) async throws
}
