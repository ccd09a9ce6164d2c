import Crypto
import Foundation

extension HashFunction {
    /// The hex digest of `text`'s UTF-8 bytes, lower-case unless `uppercase`.
    ///
    /// ```swift
    /// SHA256.hexDigest(of: "abc")                              // "ba7816bf…"
    /// Insecure.SHA1.hexDigest(of: "abc", uppercase: true)      // "A9993E36…"
    /// ```
    public static func hexDigest(of text: String, uppercase: Bool = false) -> String {
        hexString(hash(data: Data(text.utf8)), uppercase: uppercase)
    }
}

extension HMAC {
    /// The lower-case hex authentication code of `text`'s UTF-8 bytes under `key`.
    ///
    /// ```swift
    /// HMAC<SHA256>.hexCode(for: "alice", using: SymmetricKey(size: .bits256))   // 64 hex digits
    /// ```
    public static func hexCode(for text: String, using key: SymmetricKey) -> String {
        hexString(authenticationCode(for: Data(text.utf8), using: key), uppercase: false)
    }
}

/// Two hex digits per byte (the one hex encoder of AuthCore).
func hexString(_ bytes: some Sequence<UInt8>, uppercase: Bool) -> String {
    let hexDigits = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
    var out = [UInt8]()
    for byte in bytes {
        out.append(hexDigits[Int(byte >> 4)])
        out.append(hexDigits[Int(byte & 0x0f)])
    }
    return String(decoding: out, as: UTF8.self)
}
