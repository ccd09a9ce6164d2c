import Foundation

/// A signing key as it is stored: its private key sealed with AES-GCM under the
/// key-encryption key, with the `kid` as authenticated data (so the blob opens only in its
/// own row), and the fingerprint of the KEK that sealed it.
///
/// ```swift
/// let sealed = try kek.seal(SigningKey.generate(now: clock.now))
/// try await storage.signingKeys.add([sealed], removing: [], keeping: 2)
/// let key = try kek.open(sealed)   // the SigningKey again
/// ```
public struct SealedSigningKey: Sendable, Equatable {
    /// Key identifier (public), also the authenticated data of ``sealedPrivateKey``.
    public let kid: String
    /// What the key signs with.
    public let algorithm: SigningAlgorithm
    /// AES-GCM's combined output: 12-byte nonce, ciphertext, 16-byte tag.
    public let sealedPrivateKey: Data
    /// ``KeyEncryptionKey/fingerprint`` of the KEK that sealed it.
    public let keyEncryptionKeyFingerprint: String
    /// When the key was created.
    public let createdAt: Date

    /// Wraps stored, sealed key material.
    public init(
        kid: String, algorithm: SigningAlgorithm = .edDSA, sealedPrivateKey: Data, keyEncryptionKeyFingerprint: String, createdAt: Date
    ) {
        self.kid = kid
        self.algorithm = algorithm
        self.sealedPrivateKey = sealedPrivateKey
        self.keyEncryptionKeyFingerprint = keyEncryptionKeyFingerprint
        self.createdAt = createdAt
    }
}
