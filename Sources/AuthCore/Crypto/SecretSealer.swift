import Crypto
import Foundation

/// Seals secrets kept at rest (AES-GCM with a fresh nonce) under a key derived from the KEK
/// for one purpose, each box bound to a context (the row it belongs to), so a reader of the
/// database or of a backup finds none of them in clear, and a box copied to another row
/// does not open there.
///
/// ```swift
/// let sealer = SecretSealer(keyEncryptionKey: kek, purpose: "totp-secrets")
/// let sealed = try sealer.seal(Data(secret), context: user.id.uuidString)
/// try sealer.open(sealed, context: user.id.uuidString)   // the secret
/// ```
public struct SecretSealer: Sendable {
    private let key: SymmetricKey

    /// A sealer under `keyEncryptionKey`'s key for `purpose`.
    public init(keyEncryptionKey: KeyEncryptionKey, purpose: String) {
        key = keyEncryptionKey.derivedKey(purpose: purpose)
    }

    /// Seals `secret`, bound to `context`.
    /// - Throws: ``SecretSealerError`` (AES-GCM always gives a combined box with its default nonce).
    public func seal(_ secret: Data, context: String) throws -> Data {
        guard let combined = try AES.GCM.seal(secret, using: key, authenticating: Data(context.utf8)).combined else {
            throw SecretSealerError()
        }
        return combined
    }

    /// Opens what ``seal(_:context:)`` made for the same `context`.
    /// - Throws: ``SecretSealerError`` when another KEK sealed it, or it was altered or
    ///   belongs to another context.
    public func open(_ sealed: Data, context: String) throws -> Data {
        do {
            return try AES.GCM.open(try AES.GCM.SealedBox(combined: sealed), using: key, authenticating: Data(context.utf8))
        } catch {
            throw SecretSealerError()
        }
    }
}

/// A sealed secret did not open (another KEK sealed it, or it was altered or moved).
///
/// ```swift
/// catch is SecretSealerError { … }
/// ```
public struct SecretSealerError: Error, Sendable, CustomStringConvertible {
    /// The text, naming no secret.
    public var description: String { "a sealed secret does not open with this key-encryption key" }
}
