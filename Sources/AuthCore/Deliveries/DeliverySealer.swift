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
    private let sealer: SecretSealer

    /// A sealer under `keyEncryptionKey`'s `delivery-tokens` key.
    public init(keyEncryptionKey: KeyEncryptionKey) {
        sealer = SecretSealer(keyEncryptionKey: keyEncryptionKey, purpose: "delivery-tokens")
    }

    /// Seals `token` with a fresh nonce.
    public func seal(_ token: String, purpose: AccountTokenPurpose) throws -> Data {
        do {
            return try sealer.seal(Data(token.utf8), context: purpose.rawValue)
        } catch {
            throw DeliverySealerError()
        }
    }

    /// Opens what ``seal(_:purpose:)`` made.
    /// - Throws: ``DeliverySealerError`` when it was sealed under another KEK or altered.
    public func open(_ sealed: Data, purpose: AccountTokenPurpose) throws -> String {
        do {
            return String(decoding: try sealer.open(sealed, context: purpose.rawValue), as: UTF8.self)
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
