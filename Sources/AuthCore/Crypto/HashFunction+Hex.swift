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
        let hexDigits = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        var out = [UInt8]()
        out.reserveCapacity(Self.Digest.byteCount * 2)
        for byte in hash(data: Data(text.utf8)) {
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
