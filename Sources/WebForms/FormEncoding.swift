import Foundation

/// `application/x-www-form-urlencoded` as the WHATWG URL standard writes and reads it: UTF-8,
/// spaces as `+`, every byte but letters, digits and `*-._` percent-encoded. The one form
/// codec of the package: authd's OAuth routes read their bodies with it, the contract
/// verifier writes forms with it and the stub reads them with it.
///
/// ```swift
/// FormEncoding.encode([("grant_type", "client_credentials"), ("scope", "read write")])
/// // "grant_type=client_credentials&scope=read+write"
/// FormEncoding.decode(Data("scope=read+write&x=%E2%9C%93".utf8))   // [("scope", "read write"), ("x", "✓")]
/// ```
public enum FormEncoding {
    /// `application/x-www-form-urlencoded`.
    public static let mediaType = "application/x-www-form-urlencoded"

    /// The fields, in order, as a form body.
    public static func encode(_ fields: [(name: String, value: String)]) -> String {
        fields.map { escape($0.name) + "=" + escape($0.value) }.joined(separator: "&")
    }

    /// The fields of a form body, in order (duplicates kept); nil when it is not UTF-8 or a
    /// `%` is not followed by two hex digits. Split with `memchr`, and unescaped byte by byte
    /// only where a `%` or `+` is (not through Foundation's `removingPercentEncoding`): the
    /// stub reads every form request with it, a megabyte-long one included.
    public static func decode(_ data: Data) -> [(name: String, value: String)]? {
        guard String(validating: data, as: UTF8.self) != nil else { return nil }
        return data.withUnsafeBytes { body -> [(name: String, value: String)]? in
            var fields: [(name: String, value: String)] = []
            var start = 0
            while start < body.count {
                // One pair: up to the next `&`; its name ends at its first `=`.
                let end = position(of: UInt8(ascii: "&"), in: body, start..<body.count)
                if end > start {
                    let equals = position(of: UInt8(ascii: "="), in: body, start..<end)
                    guard let name = unescape(body, start..<equals), let value = equals < end ? unescape(body, (equals + 1)..<end) : ""
                    else {
                        return nil
                    }
                    fields.append((name, value))
                }
                start = end + 1
            }
            return fields
        }
    }

    /// Whether a `Content-Type` value names a form body (parameters such as `charset` allowed).
    public static func isForm(contentType: String?) -> Bool {
        mediaType(of: contentType) == mediaType
    }

    /// The media type of a `Content-Type` value, lower-cased, without parameters or the
    /// spaces and tabs around it. Byte by byte: every JSON and form request asks (through
    /// Foundation's trimming and lower-casing it cost authd 2 % of a refresh's CPU).
    ///
    /// ```swift
    /// FormEncoding.mediaType(of: " Application/JSON; charset=utf-8")   // "application/json"
    /// ```
    public static func mediaType(of contentType: String?) -> String? {
        guard let contentType else { return nil }
        var type = contentType.utf8.prefix { $0 != UInt8(ascii: ";") }
        while let first = type.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { type = type.dropFirst() }
        while let last = type.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { type = type.dropLast() }
        return String(decoding: type.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    private static let kept = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789*-._".utf8)

    private static func escape(_ text: String) -> String {
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            if kept.contains(byte) {
                bytes.append(byte)
            } else if byte == UInt8(ascii: " ") {
                bytes.append(UInt8(ascii: "+"))
            } else {
                bytes += Array(String(format: "%%%02X", byte).utf8)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// One encoded name or value: `+` as a space, `%XX` as a byte; nil when not UTF-8 or a `%`
    /// is not followed by two hex digits.
    public static func unescape(_ text: some StringProtocol) -> String? {
        Array(text.utf8).withUnsafeBytes { unescape($0, 0..<$0.count) }
    }

    /// `range` of `bytes`, which are UTF-8 already (``decode(_:)`` checks the whole body; a
    /// `String`'s are), unescaped; only what `%XX` escapes decode to needs checking.
    private static func unescape(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> String? {
        // Most names and values have nothing to unescape.
        if position(of: UInt8(ascii: "%"), in: bytes, range) == range.upperBound,
            position(of: UInt8(ascii: "+"), in: bytes, range) == range.upperBound
        {
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(range.count)
        var index = range.lowerBound
        while index < range.upperBound {
            switch bytes[index] {
            case UInt8(ascii: "+"):
                decoded.append(UInt8(ascii: " "))
                index += 1
            case UInt8(ascii: "%"):
                guard index + 2 < range.upperBound, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) else {
                    return nil
                }
                decoded.append(high << 4 | low)
                index += 3
            case let byte:
                decoded.append(byte)
                index += 1
            }
        }
        return String(validating: decoded, as: UTF8.self)
    }

    /// Where `byte` first is in `range` of `bytes`, or the range's end (`memchr`: a form may be
    /// a megabyte long).
    private static func position(of byte: UInt8, in bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Int {
        guard !range.isEmpty, let base = bytes.baseAddress, let found = memchr(base + range.lowerBound, Int32(byte), range.count) else {
            return range.upperBound
        }
        return UnsafeRawPointer(found) - base
    }

    /// The value of a hex digit, either case.
    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
