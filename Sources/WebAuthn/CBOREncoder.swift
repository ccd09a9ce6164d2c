import Foundation

/// Encodes ``CBORValue``s (RFC 8949) with the shortest heads and definite lengths, map
/// entries in the order given: what the software authenticator and the tests build
/// attestation objects and COSE keys with.
///
/// ```swift
/// CBOREncoder.encode(.map([.init(.text("fmt"), .text("none"))]))   // a1 63 66 6d 74 64 6e 6f 6e 65
/// ```
public enum CBOREncoder {
    /// The encoding of `value`.
    ///
    /// ```swift
    /// CBOREncoder.encode(.int(-1000))   // 39 03 e7
    /// ```
    public static func encode(_ value: CBORValue) -> Data {
        var out = [UInt8]()
        append(value, to: &out)
        return Data(out)
    }

    private static func append(_ value: CBORValue, to out: inout [UInt8]) {
        switch value {
        case .unsigned(let number):
            appendHead(major: 0, argument: number, to: &out)
        case .negative(let number):
            appendHead(major: 1, argument: number, to: &out)
        case .bytes(let bytes):
            appendHead(major: 2, argument: UInt64(bytes.count), to: &out)
            out.append(contentsOf: bytes)
        case .text(let text):
            appendHead(major: 3, argument: UInt64(text.utf8.count), to: &out)
            out.append(contentsOf: text.utf8)
        case .array(let items):
            appendHead(major: 4, argument: UInt64(items.count), to: &out)
            for item in items { append(item, to: &out) }
        case .map(let entries):
            appendHead(major: 5, argument: UInt64(entries.count), to: &out)
            for entry in entries {
                append(entry.key, to: &out)
                append(entry.value, to: &out)
            }
        case .bool(let flag):
            out.append(flag ? 0xf5 : 0xf4)
        case .null:
            out.append(0xf6)
        }
    }

    /// The initial byte and the argument in the fewest bytes (RFC 8949 §3).
    static func head(major: UInt8, argument: UInt64) -> [UInt8] {
        var out = [UInt8]()
        appendHead(major: major, argument: argument, to: &out)
        return out
    }

    private static func appendHead(major: UInt8, argument: UInt64, to out: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24:
            out.append(type | UInt8(argument))
        case 24...0xff:
            out.append(type | 24)
            out.append(UInt8(argument))
        case 0x100...0xffff:
            out.append(type | 25)
            appendBigEndian(argument, byteCount: 2, to: &out)
        case 0x1_0000...0xffff_ffff:
            out.append(type | 26)
            appendBigEndian(argument, byteCount: 4, to: &out)
        default:
            out.append(type | 27)
            appendBigEndian(argument, byteCount: 8, to: &out)
        }
    }

    private static func appendBigEndian(_ value: UInt64, byteCount: Int, to out: inout [UInt8]) {
        for index in stride(from: byteCount - 1, through: 0, by: -1) {
            out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index))))
        }
    }
}
