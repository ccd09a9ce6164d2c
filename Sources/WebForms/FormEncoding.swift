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
    /// `%` is not followed by two hex digits.
    public static func decode(_ data: Data) -> [(name: String, value: String)]? {
        guard let text = String(data: data, encoding: .utf8) else { return nil }
        var fields: [(name: String, value: String)] = []
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = unescape(parts[0]), let value = parts.count > 1 ? unescape(parts[1]) : "" else { return nil }
            fields.append((name, value))
        }
        return fields
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
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
