import Foundation

extension KeyService {
    /// What a revocation did.
    public struct Revocation: Sendable, Equatable {
        /// The new current Ed25519 key (access tokens').
        public let current: SigningKey
        /// The new current key of each algorithm.
        public let added: [SigningKey]
        /// The ids of the keys revoked and deleted.
        public let revokedKids: [String]
    }

    /// For a leaked key: makes a new current key of each algorithm and deletes the current ones at once, so it
    /// leaves the published set (the key before it stays published); audited as
    /// `key_rotated` and `key_revoked`. Every instance stops accepting tokens it signed at
    /// its next key reload.
    ///
    /// ```swift
    /// let revocation = try await keys.revokeCurrent()
    /// print("revoked \(revocation.revokedKids), now \(revocation.current.kid)")
    /// ```
    /// - Throws: ``SealingError`` when the stored keys were sealed under another KEK.
    public func revokeCurrent(origin: RequestOrigin = RequestOrigin()) async throws -> Revocation {
        try await replaceCurrent(revoking: .current, origin: origin)
    }

    /// For every key leaked, or a lost KEK: makes a new current key and deletes every other
    /// key without opening it, so it works under a new KEK. Every access token signed before
    /// stops verifying at the next key reload.
    ///
    /// ```swift
    /// let revocation = try await KeyService(storage: storage, keyEncryptionKey: newKEK).revokeAll()
    /// ```
    public func revokeAll(origin: RequestOrigin = RequestOrigin()) async throws -> Revocation {
        try await replaceCurrent(revoking: .all, origin: origin)
    }
}
