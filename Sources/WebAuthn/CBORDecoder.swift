import Foundation

/// Decodes CBOR (RFC 8949) into ``CBORValue``s, bounded for untrusted input: definite
/// lengths only, at most ``maximumDepth`` levels of arrays and maps, every length checked
/// against the bytes that remain before anything is allocated, no arithmetic that can trap,
/// map keys that are integers or text and appear once. Floating-point numbers, tags,
/// `undefined` and other simple values are refused. Every failure is a malformed
/// ``WebAuthnError`` naming `field` and the byte offset.
///
/// ```swift
/// let object = try CBORDecoder.decode(attestationObjectBytes, field: "attestationObject")
/// object["fmt"]?.textValue   // "none"
/// ```
public enum CBORDecoder {
    /// How deeply arrays and maps may nest (the top-level item is level 1).
    public static let maximumDepth = 16

    /// The one item that fills `data`.
    ///
    /// ```swift
    /// try CBORDecoder.decode(Data([0x83, 0x01, 0x02, 0x03]), field: "x")   // .array([1, 2, 3])
    /// try CBORDecoder.decode(Data([0x01, 0x02]), field: "x")               // throws: 1 byte after the item
    /// ```
    /// - Throws: a malformed ``WebAuthnError`` naming `field`.
    public static func decode(_ data: Data, field: String) throws(WebAuthnError) -> CBORValue {
        let (value, length) = try decodePrefix(data, field: field)
        guard length == data.count else {
            throw .malformed(field, "\(data.count - length) bytes follow the CBOR item")
        }
        return value
    }

    /// The item at the start of `data` and how many bytes it took (the credential public
    /// key inside authenticator data is followed by other bytes).
    ///
    /// ```swift
    /// try CBORDecoder.decodePrefix(Data([0x01, 0xff]), field: "x")   // (.unsigned(1), 1)
    /// ```
    /// - Throws: a malformed ``WebAuthnError`` naming `field`.
    public static func decodePrefix(_ data: Data, field: String) throws(WebAuthnError) -> (value: CBORValue, length: Int) {
        var reader = Reader(bytes: Array(data), field: field)
        let value = try reader.item(depth: 1)
        return (value, reader.position)
    }

    /// A cursor over the input.
    private struct Reader {
        let bytes: [UInt8]
        let field: String
        var position = 0

        init(bytes: [UInt8], field: String) {
            self.bytes = bytes
            self.field = field
        }

        var remaining: Int { bytes.count - position }

        func failure(_ reason: String) -> WebAuthnError {
            .malformed(field, "CBOR \(reason) at byte \(position)")
        }

        mutating func item(depth: Int) throws(WebAuthnError) -> CBORValue {
            guard depth <= CBORDecoder.maximumDepth else {
                throw failure("nests deeper than \(CBORDecoder.maximumDepth) levels")
            }
            let initial = try byte()
            let major = initial >> 5
            let info = initial & 0x1f
            if major == 7 { return try simple(info) }
            let argument = try argument(info)
            switch major {
            case 0:
                return .unsigned(argument)
            case 1:
                return .negative(argument)
            case 2:
                return .bytes(Data(try take(argument)))
            case 3:
                guard let text = String(validating: try take(argument), as: UTF8.self) else {
                    throw failure("text string is not UTF-8")
                }
                return .text(text)
            case 4:
                // Each item takes at least one byte: a count beyond the bytes left is false.
                guard argument <= UInt64(remaining) else { throw failure("array claims \(argument) items with \(remaining) bytes left") }
                var items: [CBORValue] = []
                items.reserveCapacity(Int(argument))
                for _ in 0..<argument { items.append(try item(depth: depth + 1)) }
                return .array(items)
            case 5:
                guard argument <= UInt64(remaining / 2) else {
                    throw failure("map claims \(argument) entries with \(remaining) bytes left")
                }
                var entries: [CBORMapEntry] = []
                entries.reserveCapacity(Int(argument))
                var keys = Set<CBORValue>()
                for _ in 0..<argument {
                    let key = try item(depth: depth + 1)
                    switch key {
                    case .unsigned, .negative, .text: break
                    default: throw failure("map key is neither an integer nor text")
                    }
                    guard keys.insert(key).inserted else { throw failure("map repeats a key") }
                    entries.append(CBORMapEntry(key, try item(depth: depth + 1)))
                }
                return .map(entries)
            default:
                throw failure("tags are not supported")
            }
        }

        /// Major type 7: only false, true and null.
        mutating func simple(_ info: UInt8) throws(WebAuthnError) -> CBORValue {
            switch info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            case 25, 26, 27: throw failure("floating-point numbers are not supported")
            case 31: throw failure("break outside an indefinite-length item")
            default: throw failure("simple value \(info) is not supported")
            }
        }

        /// The argument of an initial byte's additional information (RFC 8949 §3).
        mutating func argument(_ info: UInt8) throws(WebAuthnError) -> UInt64 {
            switch info {
            case 0..<24: return UInt64(info)
            case 24: return UInt64(try byte())
            case 25: return try bigEndian(byteCount: 2)
            case 26: return try bigEndian(byteCount: 4)
            case 27: return try bigEndian(byteCount: 8)
            case 31: throw failure("indefinite lengths are not supported")
            default: throw failure("additional information \(info) is reserved")
            }
        }

        mutating func byte() throws(WebAuthnError) -> UInt8 {
            guard position < bytes.count else { throw failure("is truncated") }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func bigEndian(byteCount: Int) throws(WebAuthnError) -> UInt64 {
            var value: UInt64 = 0
            for _ in 0..<byteCount { value = value << 8 | UInt64(try byte()) }
            return value
        }

        /// The next `count` bytes, checked against what is left before any allocation.
        mutating func take(_ count: UInt64) throws(WebAuthnError) -> ArraySlice<UInt8> {
            guard count <= UInt64(remaining) else { throw failure("string claims \(count) bytes with \(remaining) left") }
            let start = position
            position += Int(count)
            return bytes[start..<position]
        }
    }
}
