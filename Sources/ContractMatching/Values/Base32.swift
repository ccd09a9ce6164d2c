/// Base32 (RFC 4648 §6), the text TOTP keys are shared in: upper-case letters and `2`–`7`,
/// written without padding.
///
/// ```swift
/// Base32.encode(Array("Hello!".utf8))    // "JBSWY3DPEE"
/// Base32.decode("jbswy3dp ee======")     // [72, 101, 108, 108, 111, 33]
/// Base32.decode("JBSWY3D1")              // nil: 1 is not in the alphabet
/// ```
public enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// `bytes` in base32, upper case, without `=` padding.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var text: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                text.append(alphabet[Int((buffer >> UInt32(bits)) & 31)])
            }
        }
        if bits > 0 { text.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes `text` holds, letters in either case, spaces and `=` padding ignored; nil
    /// when it has another character, or none at all.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var bytes: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        var sawAny = false
        for character in text.utf8 {
            let value: UInt8
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = character - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = character - UInt8(ascii: "a")
            case UInt8(ascii: "2")...UInt8(ascii: "7"): value = character - UInt8(ascii: "2") + 26
            case UInt8(ascii: " "), UInt8(ascii: "="): continue
            default: return nil
            }
            sawAny = true
            buffer = (buffer << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return sawAny ? bytes : nil
    }
}
