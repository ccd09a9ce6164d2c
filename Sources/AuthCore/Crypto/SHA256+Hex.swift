import Crypto
import Foundation

extension SHA256 {
    /// The lower-case hex SHA-256 of `text`'s UTF-8 bytes.
    ///
    /// ```swift
    /// SHA256.hexDigest(of: "abc")   // "ba7816bf…"
    /// ```
    public static func hexDigest(of text: String) -> String {
        let hexDigits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(Self.byteCount * 2)
        for byte in hash(data: Data(text.utf8)) {
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
