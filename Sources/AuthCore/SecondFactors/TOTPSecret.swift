import Foundation
import JOSE

/// The key an authenticator app shares with authd for TOTP (RFC 6238): 23 random bytes
/// below 0x80, 161 bits (RFC 4226 asks for at least 128). The bytes are ASCII so that
/// ``text`` holds them exactly: the TOTP implementation authd uses (HummingbirdOTP) keys
/// its HMAC with a secret's UTF-8 bytes. Apps receive the bytes in base32.
///
/// ```swift
/// let secret = TOTPSecret.generate()
/// secret.bytes.count   // 23
/// ```
public struct TOTPSecret: Sendable, Equatable {
    /// The key's bytes, each below 0x80.
    public let bytes: [UInt8]

    /// The key as text: its bytes, one ASCII character each.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// A fresh random key.
    public static func generate() -> TOTPSecret {
        TOTPSecret(checked: SecureRandom.bytes(23).map { $0 & 0x7F })
    }

    /// The key in `bytes`, nil unless each is below 0x80 (what ``generate()`` makes).
    public init?(bytes: [UInt8]) {
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        self.init(checked: bytes)
    }

    private init(checked bytes: [UInt8]) {
        self.bytes = bytes
    }
}
