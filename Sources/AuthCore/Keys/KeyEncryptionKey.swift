import Crypto
import Foundation

/// The 32-byte key-encryption key (KEK) under which signing keys are sealed at rest, and
/// from which other purpose-bound secrets are derived. It never appears in text: its
/// ``description`` and its ``fingerprint`` name it without revealing it.
///
/// ```swift
/// let kek = try KeyEncryptionKey(base64: environment["AUTHD_KEY_ENCRYPTION_KEY"] ?? "")
/// let sealed = try kek.seal(SigningKey.generate(now: Date()))
/// kek.fingerprint                                      // "3f9c0a51d2e47b86"
/// let digestKey = kek.derivedKey(purpose: "throttle")  // HMAC key for counters
/// ```
public struct KeyEncryptionKey: Sendable, CustomStringConvertible {
    /// The number of bytes of a KEK.
    public static let byteCount = 32

    private let key: SymmetricKey
    /// A short, public name of this KEK (16 hex digits): stored beside each sealed key so
    /// a wrong KEK is named rather than failing as a bare decryption error. Derived
    /// one-way (SHA-256 of a HKDF-derived id), so it reveals nothing about the KEK.
    public let fingerprint: String

    /// A KEK of exactly ``byteCount`` raw bytes.
    /// - Throws: ``Invalid`` when the length is wrong.
    public init(bytes: some ContiguousBytes) throws {
        let key = SymmetricKey(data: bytes)
        guard key.bitCount == Self.byteCount * 8 else { throw Invalid() }
        self.init(checked: key)
    }

    /// `key` is 32 bytes.
    private init(checked key: SymmetricKey) {
        self.key = key
        let id = Self.derive(from: key, purpose: "key-encryption-key-id")
        self.fingerprint = id.withUnsafeBytes { SHA256.hash(data: $0) }.prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// A KEK from its base64 text (surrounding whitespace ignored), as
    /// `head -c 32 /dev/urandom | base64` prints it.
    /// - Throws: ``Invalid`` when it is not base64 of 32 bytes.
    public init(base64: String) throws {
        guard let bytes = Data(base64Encoded: base64.trimmingCharacters(in: .whitespacesAndNewlines)) else { throw Invalid() }
        try self.init(bytes: bytes)
    }

    /// A KEK from a file's contents: exactly 32 raw bytes, or else base64 text of 32 bytes
    /// (44 characters, a trailing newline allowed).
    /// - Throws: ``Invalid`` when it is neither.
    public init(fileContents: Data) throws {
        if fileContents.count == Self.byteCount {
            try self.init(bytes: fileContents)
        } else {
            try self.init(base64: String(decoding: fileContents, as: UTF8.self))
        }
    }

    /// A fresh random KEK.
    public static func generate() -> KeyEncryptionKey {
        KeyEncryptionKey(checked: SymmetricKey(size: .bits256))
    }

    /// A 32-byte secret bound to `purpose` (HKDF-SHA256 with `authd/<purpose>` as its info):
    /// different purposes give independent keys, and none of them reveals the KEK.
    ///
    /// ```swift
    /// let hmacKey = kek.derivedKey(purpose: "throttle-counters")
    /// let digest = HMAC<SHA256>.authenticationCode(for: Data(username.utf8), using: hmacKey)
    /// ```
    public func derivedKey(purpose: String) -> SymmetricKey {
        Self.derive(from: key, purpose: purpose)
    }

    private static func derive(from key: SymmetricKey, purpose: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: key, info: Data("authd/\(purpose)".utf8), outputByteCount: byteCount)
    }

    /// Names the KEK by its fingerprint only.
    public var description: String { "key-encryption key \(fingerprint)" }

    /// A KEK that is not 32 bytes (raw, or base64 text). Its text never echoes what was given.
    ///
    /// ```swift
    /// catch let error as KeyEncryptionKey.Invalid { print(error) }
    /// ```
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        /// What a KEK must be and how to make one.
        public var description: String {
            "a key-encryption key must be 32 random bytes, raw or as base64 text (make one with: head -c 32 /dev/urandom | base64)"
        }
    }
}
