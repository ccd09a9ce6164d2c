import Crypto
import Foundation
import JOSE

/// Seals the tokens waiting in the outbox (AES-GCM under a key derived from the KEK,
/// bound to the message's kind), so a reader of the database or of a backup finds no
/// working reset token in it; and derives the 6-digit code an email sign-in carries from its
/// token's digest (HMAC-SHA256 under another key derived from the KEK), so the code need not
/// be stored: a million codes are guessed offline from a stored hash, never from an HMAC
/// whose key is not in the database.
///
/// ```swift
/// let sealer = DeliverySealer(keyEncryptionKey: kek)
/// let sealed = try sealer.seal("tok", purpose: .passwordReset)
/// try sealer.open(sealed, purpose: .passwordReset)   // "tok"
/// ```
public struct DeliverySealer: Sendable {
    private let sealer: SecretSealer
    private let codeKey: SymmetricKey

    /// A sealer under `keyEncryptionKey`'s `delivery-tokens` key (and its `sign-in-codes` key).
    public init(keyEncryptionKey: KeyEncryptionKey) {
        sealer = SecretSealer(keyEncryptionKey: keyEncryptionKey, purpose: "delivery-tokens")
        codeKey = keyEncryptionKey.derivedKey(purpose: "sign-in-codes")
    }

    /// The 6-digit code of the email sign-in token whose digest (``OpaqueToken/hash(of:)``)
    /// is `tokenHash`: the HMAC's first 8 bytes, big-endian, modulo a million (a bias below
    /// 10⁻¹³), zero-padded.
    public func code(forTokenHash tokenHash: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data(tokenHash.utf8), using: codeKey)
        let value = Array(mac).prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let digits = String(value % 1_000_000)
        return String(repeating: "0", count: 6 - digits.count) + digits
    }

    /// Whether `presented` is the code of `tokenHash` (compared in constant time).
    public func codeMatches(_ presented: String, tokenHash: String) -> Bool {
        ConstantTime.equal(Array(presented.utf8), Array(code(forTokenHash: tokenHash).utf8))
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
