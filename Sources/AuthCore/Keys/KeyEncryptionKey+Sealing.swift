import Crypto
import Foundation

extension KeyEncryptionKey {
    /// The AES-GCM key that seals signing keys: derived, so the KEK itself encrypts nothing.
    private var sealingKey: SymmetricKey { derivedKey(purpose: "signing-key-sealing") }

    /// Seals `key`'s private key with AES-GCM (a fresh random nonce), bound to its `kid`.
    ///
    /// ```swift
    /// let sealed = try kek.seal(SigningKey.generate(now: Date()))
    /// sealed.keyEncryptionKeyFingerprint == kek.fingerprint   // true
    /// ```
    public func seal(_ key: SigningKey) throws -> SealedSigningKey {
        let box = try AES.GCM.seal(key.privateKey, using: sealingKey, authenticating: Data(key.kid.utf8))
        guard let combined = box.combined else { throw SealingError(kind: .doesNotOpen(kid: key.kid)) }
        return SealedSigningKey(
            kid: key.kid, algorithm: key.algorithm, sealedPrivateKey: combined, keyEncryptionKeyFingerprint: fingerprint,
            createdAt: key.createdAt)
    }

    /// Opens `sealed`.
    ///
    /// ```swift
    /// let key = try kek.open(sealed)   // key.kid == sealed.kid
    /// ```
    /// - Throws: ``SealingError`` naming both fingerprints when another KEK sealed it, or
    ///   saying it does not open when it was altered or copied from another row.
    public func open(_ sealed: SealedSigningKey) throws -> SigningKey {
        guard sealed.keyEncryptionKeyFingerprint == fingerprint else {
            throw SealingError(kind: .otherKey(kid: sealed.kid, sealedUnder: sealed.keyEncryptionKeyFingerprint, given: fingerprint))
        }
        do {
            let box = try AES.GCM.SealedBox(combined: sealed.sealedPrivateKey)
            let privateKey = try AES.GCM.open(box, using: sealingKey, authenticating: Data(sealed.kid.utf8))
            return SigningKey(kid: sealed.kid, algorithm: sealed.algorithm, privateKey: privateKey, createdAt: sealed.createdAt)
        } catch {
            throw SealingError(kind: .doesNotOpen(kid: sealed.kid))
        }
    }
}

/// A sealed signing key that this KEK cannot open. Its text names the key and the KEKs'
/// fingerprints, never a secret.
///
/// ```swift
/// catch let error as SealingError { print(error) }
/// // signing key Ab3… was sealed under key-encryption key 3f9c0a51d2e47b86, but the one given is 77e1…
/// ```
public struct SealingError: Error, Sendable, Equatable, CustomStringConvertible {
    fileprivate enum Kind: Sendable, Equatable {
        case otherKey(kid: String, sealedUnder: String, given: String)
        case doesNotOpen(kid: String)
    }

    fileprivate let kind: Kind

    /// Whether the key was sealed under another KEK (rather than altered).
    public var isWrongKey: Bool {
        if case .otherKey = kind { true } else { false }
    }

    /// A one-line explanation.
    public var description: String {
        switch kind {
        case .otherKey(let kid, let sealedUnder, let given):
            "signing key \(kid) was sealed under key-encryption key \(sealedUnder), but the one given is \(given)"
        case .doesNotOpen(let kid):
            "signing key \(kid) does not open under its key-encryption key: its sealed bytes were altered or belong to another key"
        }
    }
}
