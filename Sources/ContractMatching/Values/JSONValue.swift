import Foundation

/// A JSON value that keeps integers apart from other numbers, so matchers can tell
/// `integer` from `number`.
///
/// ```swift
/// let value = try JSONValue(parsing: Data(#"{"expires_in": 900}"#.utf8))
/// value["expires_in"]   // .integer(900)
/// ```
public enum JSONValue: Sendable, Hashable, Codable, CustomStringConvertible {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// `value` as JSON: an integer when it is whole (a matcher's bound `3.0` is written `3`),
    /// else a number.
    ///
    /// ```swift
    /// JSONValue.numeric(3)     // .integer(3)
    /// JSONValue.numeric(0.5)   // .number(0.5)
    /// ```
    public static func numeric(_ value: Double) -> JSONValue {
        value.rounded() == value && abs(value) < 1e15 ? .integer(Int(value)) : .number(value)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Pretty-printed JSON with sorted keys and unescaped slashes, ending in a newline: a
    /// document written to a file.
    ///
    /// ```swift
    /// try JSONValue.object(["a": .integer(1)]).prettyText()   // "{\n  \"a\" : 1\n}\n"
    /// ```
    public func prettyText() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }

    /// Compact JSON with sorted keys.
    public var description: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128)
        write(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The compact JSON cut at `limit` characters, "…" ending a cut, as explanations show a
    /// value, and written only about as far as it is shown: a probe's 10,000-character string
    /// or megabyte body costs what a short one does.
    ///
    /// ```swift
    /// JSONValue.string(String(repeating: "x", count: 10_000)).abbreviated()   // a quote, 76 x's and "…"
    /// ```
    package func abbreviated(limit: Int = 80) -> String {
        shortened(to: limit).description.abbreviated(limit: limit)
    }

    /// This value with each string cut to `limit` characters and each array to `limit`
    /// elements: the first `limit` characters of its JSON are this value's (escaping only
    /// lengthens, and every element takes at least one).
    private func shortened(to limit: Int) -> JSONValue {
        switch self {
        case .string(let text): text.utf8.count > limit ? .string(String(text.prefix(limit))) : self
        case .array(let elements): .array(elements.prefix(limit).map { $0.shortened(to: limit) })
        case .object(let members): .object(members.mapValues { $0.shortened(to: limit) })
        default: self
        }
    }

    /// Appends the compact JSON's UTF-8 bytes.
    private func write(into bytes: inout [UInt8]) {
        switch self {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let value): bytes.append(contentsOf: (value ? "true" : "false").utf8)
        case .integer(let value): bytes.append(contentsOf: String(value).utf8)
        case .number(let value): bytes.append(contentsOf: (value.isFinite ? String(value) : "null").utf8)
        case .string(let value): Self.writeString(value, into: &bytes)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                element.write(into: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                Self.writeString(member.key, into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                member.value.write(into: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// A JSON string: `"`, `\` and control characters escaped, everything else as is (a
    /// multi-byte character's bytes are all 0x80 or above, so bytes decide alone).
    private static func writeString(_ value: String, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        // Most strings need no escaping: append them whole.
        guard value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            bytes.append(contentsOf: value.utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): bytes.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): bytes.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): bytes.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                bytes.append(contentsOf: #"\u00"#.utf8)
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 15)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The member `key` of an object, nil otherwise.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The value of an integer or another number, as a `Double`; nil for anything else.
    ///
    /// ```swift
    /// JSONValue.integer(901).doubleValue   // 901.0
    /// JSONValue.string("901").doubleValue  // nil
    /// ```
    public var doubleValue: Double? {
        switch self {
        case .integer(let integer): Double(integer)
        case .number(let number): number
        default: nil
        }
    }

    /// The value as text in a header, a query, a form field or a text body: a string as it is,
    /// any other value as JSON.
    ///
    /// ```swift
    /// JSONValue.string("a b").text   // "a b"
    /// JSONValue.integer(42).text     // "42"
    /// ```
    public var text: String {
        if case .string(let text) = self { text } else { description }
    }

    /// The JSON type's name, as used in messages and as JSON Schema's `type`: `null, boolean,
    /// integer, number, string, array, object`.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer: "integer"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}
