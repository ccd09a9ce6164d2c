import Foundation

/// Unpadded base64url (RFC 4648 §5), as JWTs and JWKs use it. Both directions work on bytes
/// with a table (a token is decoded on every authenticated request).
///
/// ```swift
/// Base64URL.encode(Data([0xfb, 0xff]))   // "-_8"
/// Base64URL.decode("-_8")                // Data([0xfb, 0xff])
/// ```
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Each byte's 6-bit value, or 0xFF for a byte outside the alphabet.
    private static let values: [UInt8] = {
        var values = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in alphabet.enumerated() { values[Int(byte)] = UInt8(value) }
        return values
    }()

    /// Encodes without padding.
    public static func encode(_ data: some DataProtocol) -> String {
        let bytes = Array(data)
        var output = [UInt8]()
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
            output.append(alphabet[Int(group >> 6 & 63)])
            output.append(alphabet[Int(group & 63)])
            index += 3
        }
        switch bytes.count - index {
        case 1:
            let group = UInt32(bytes[index]) << 16
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
        case 2:
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
            output.append(alphabet[Int(group >> 6 & 63)])
        default:
            break
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes, padded or not; nil when `text` is not base64url: a character outside the
    /// alphabet, a length no encoding has, or padding that does not complete the last group.
    /// Unused bits of the last character are ignored, as Foundation's base64 does.
    public static func decode(_ text: some StringProtocol) -> Data? {
        decode(bytes: Array(text.utf8))
    }

    /// ``decode(_:)`` of text given as its UTF-8 bytes.
    public static func decode(bytes: some BidirectionalCollection<UInt8>) -> Data? {
        let padding = bytes.reversed().prefix { $0 == UInt8(ascii: "=") }.count
        let input = bytes.dropLast(padding)
        let remainder = input.count % 4
        guard remainder != 1, padding == 0 || (padding <= 2 && (input.count + padding) % 4 == 0) else { return nil }
        var output = [UInt8]()
        output.reserveCapacity(input.count * 3 / 4 + 2)
        var group: UInt32 = 0
        for (index, byte) in input.enumerated() {
            let value = values[Int(byte)]
            guard value != 0xFF else { return nil }
            group = group << 6 | UInt32(value)
            if index % 4 == 3 {
                output.append(UInt8(group >> 16 & 0xFF))
                output.append(UInt8(group >> 8 & 0xFF))
                output.append(UInt8(group & 0xFF))
                group = 0
            }
        }
        switch remainder {
        case 2:
            output.append(UInt8(group >> 4 & 0xFF))
        case 3:
            output.append(UInt8(group >> 10 & 0xFF))
            output.append(UInt8(group >> 2 & 0xFF))
        default:
            break
        }
        return Data(output)
    }
}
