import Foundation

/// Unpadded base64url (RFC 4648 §5), as JWTs and JWKs use it.
///
/// ```swift
/// Base64URL.encode(Data([0xfb, 0xff]))   // "-_8"
/// Base64URL.decode("-_8")                // Data([0xfb, 0xff])
/// ```
public enum Base64URL {
    /// Encodes without padding.
    public static func encode(_ data: Data) -> String {
        var bytes: [UInt8] = []
        for byte in data.base64EncodedString().utf8 {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): bytes.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): continue
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Decodes, padded or not; nil when `text` is not base64url.
    public static func decode(_ text: some StringProtocol) -> Data? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "=") }) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
