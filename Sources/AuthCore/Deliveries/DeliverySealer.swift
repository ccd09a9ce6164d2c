import Crypto
import Foundation

/// Seals the tokens waiting in the outbox (AES-GCM under a key derived from the KEK,
/// bound to the message's kind), so a reader of the database or of a backup finds no
/// working reset token in it.
///
/// ```swift
/// let sealer = DeliverySealer(keyEncryptionKey: kek)
/// let sealed = try sealer.seal("tok", purpose: .passwordReset)
/// try sealer.open(sealed, purpose: .passwordReset)   // "tok"
/// ```
public struct DeliverySealer: Sendable {
    private let key: SymmetricKey

    /// A sealer under `keyEncryptionKey`'s `delivery-tokens` key.
    public init(keyEncryptionKey: KeyEncryptionKey) {
        key = keyEncryptionKey.derivedKey(purpose: "delivery-tokens")
    }

    /// Seals `token` with a fresh nonce.
    public func seal(_ token: String, purpose: AccountTokenPurpose) throws -> Data {
        let box = try AES.GCM.seal(Data(token.utf8), using: key, authenticating: Data(purpose.rawValue.utf8))
        guard let combined = box.combined else { throw DeliverySealerError() }
        return combined
    }

    /// Opens what ``seal(_:purpose:)`` made.
    /// - Throws: ``DeliverySealerError`` when it was sealed under another KEK or altered.
    public func open(_ sealed: Data, purpose: AccountTokenPurpose) throws -> String {
        do {
            let plain = try AES.GCM.open(try AES.GCM.SealedBox(combined: sealed), using: key, authenticating: Data(purpose.rawValue.utf8))
            return String(decoding: plain, as: UTF8.self)
        } catch {
            throw DeliverySealerError()
        }
    }
}

/// A sealed token did not open (another KEK sealed it, or it was altered).
///
/// ```swift
/// catch is DeliverySealerError { … }
/// ```
public struct DeliverySealerError: Error, Sendable, CustomStringConvertible {
    /// The text, naming no secret.
    public var description: String { "a queued token does not open with this key-encryption key" }
}
