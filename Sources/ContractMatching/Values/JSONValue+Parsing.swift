import Foundation

extension JSONValue {
    /// Parses JSON text (RFC 8259, UTF-8; any JSON value, not only objects and arrays). A
    /// UTF-8 byte order mark is skipped; nesting deeper than 512 levels is refused.
    ///
    /// It reads the bytes directly into `JSONValue`: the stub parses every request body it
    /// is asked to match, and `JSONSerialization` with its conversion took four times as long.
    ///
    /// ```swift
    /// let value = try JSONValue(parsing: Data(#"{"expires_in": 900}"#.utf8))
    /// value["expires_in"]   // .integer(900)
    /// try JSONValue(parsing: Data("{".utf8))   // throws: "JSON ends early at byte 1"
    /// ```
    /// - Throws: ``JSONParseError`` naming the byte offset and what was wrong there.
    public init(parsing data: Data) throws {
        self = try data.withUnsafeBytes { raw in
            var reader = JSONReader(bytes: raw.bindMemory(to: UInt8.self))
            return try reader.document()
        }
    }
}

/// Why a text is not JSON: what was found, and at which byte.
///
/// ```swift
/// do { _ = try JSONValue(parsing: Data("[1,]".utf8)) } catch { print(error) }
/// // unexpected "]" at byte 3
/// ```
public struct JSONParseError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// The offset of the byte where parsing stopped.
    public let offset: Int
    /// What was wrong there.
    public let reason: String

    public var description: String { "\(reason) at byte \(offset)" }
    public var errorDescription: String? { description }
}

/// A recursive-descent reader over UTF-8 bytes.
private struct JSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0
    var depth = 0

    static let maximumDepth = 512

    mutating func document() throws -> JSONValue {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
        let value = try self.value()
        skipWhitespace()
        guard position == bytes.count else { throw unexpected() }
        return value
    }

    private mutating func value() throws -> JSONValue {
        skipWhitespace()
        guard position < bytes.count else { throw JSONParseError(offset: position, reason: "JSON ends early") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw unexpected()
        }
    }

    private mutating func object() throws -> JSONValue {
        var members: [String: JSONValue] = [:]
        if try opens(closedAtOnceBy: UInt8(ascii: "}")) { return .object(members) }
        while true {
            skipWhitespace()
            guard position < bytes.count else { throw JSONParseError(offset: position, reason: "JSON ends early") }
            guard bytes[position] == UInt8(ascii: "\"") else { throw unexpected(expecting: "a member name") }
            let key = try string()
            try expect(UInt8(ascii: ":"))
            members[key] = try value()
            if try separator(closing: UInt8(ascii: "}")) { break }
        }
        depth -= 1
        return .object(members)
    }

    private mutating func array() throws -> JSONValue {
        var elements: [JSONValue] = []
        if try opens(closedAtOnceBy: UInt8(ascii: "]")) { return .array(elements) }
        while true {
            elements.append(try value())
            if try separator(closing: UInt8(ascii: "]")) { break }
        }
        depth -= 1
        return .array(elements)
    }

    /// Steps past an opening bracket, one level deeper; true (and back out) when `closing`
    /// follows at once.
    private mutating func opens(closedAtOnceBy closing: UInt8) throws -> Bool {
        depth += 1
        guard depth <= Self.maximumDepth else {
            throw JSONParseError(offset: position, reason: "nested deeper than \(Self.maximumDepth) levels")
        }
        position += 1
        skipWhitespace()
        guard position < bytes.count, bytes[position] == closing else { return false }
        position += 1
        depth -= 1
        return true
    }

    /// After a member or element: true at the closing bracket, false after a comma.
    private mutating func separator(closing: UInt8) throws -> Bool {
        skipWhitespace()
        guard position < bytes.count else { throw JSONParseError(offset: position, reason: "JSON ends early") }
        switch bytes[position] {
        case UInt8(ascii: ","):
            position += 1
            return false
        case closing:
            position += 1
            return true
        default:
            throw unexpected(expecting: "\",\" or \"\(Character(Unicode.Scalar(closing)))\"")
        }
    }

    private mutating func expect(_ byte: UInt8) throws {
        skipWhitespace()
        guard position < bytes.count else { throw JSONParseError(offset: position, reason: "JSON ends early") }
        guard bytes[position] == byte else { throw unexpected(expecting: "\"\(Character(Unicode.Scalar(byte)))\"") }
        position += 1
    }

    private mutating func literal(_ word: StaticString) throws {
        let start = position
        for index in 0..<word.utf8CodeUnitCount {
            guard position < bytes.count, bytes[position] == word.utf8Start[index] else {
                throw JSONParseError(offset: start, reason: "not a JSON value")
            }
            position += 1
        }
    }

    private mutating func number() throws -> JSONValue {
        let start = position
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count, isDigit(bytes[position]) else { throw JSONParseError(offset: start, reason: "not a number") }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        var whole = true
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            whole = false
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else { throw JSONParseError(offset: start, reason: "not a number") }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            whole = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard position < bytes.count, isDigit(bytes[position]) else { throw JSONParseError(offset: start, reason: "not a number") }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        if whole, let integer = Int(text) { return .integer(integer) }
        guard let number = Double(text), number.isFinite else { throw JSONParseError(offset: start, reason: "a number out of range") }
        return .number(number)
    }

    /// A string's contents; `position` is at its opening quote.
    private mutating func string() throws -> String {
        let start = position
        position += 1
        let first = position
        // The common case: no escapes, so the bytes between the quotes are the string.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[first..<position])
                position += 1
                guard let text = String(validating: slice, as: UTF8.self) else {
                    throw JSONParseError(offset: first, reason: "a string that is not UTF-8")
                }
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw JSONParseError(offset: position, reason: "a control character in a string") }
            position += 1
        }
        guard position < bytes.count else { throw JSONParseError(offset: start, reason: "a string that does not end") }
        var utf8 = Array(UnsafeBufferPointer(rebasing: bytes[first..<position]))
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                guard let text = String(validating: utf8, as: UTF8.self) else {
                    throw JSONParseError(offset: first, reason: "a string that is not UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                try escape(into: &utf8)
            case ..<0x20:
                throw JSONParseError(offset: position, reason: "a control character in a string")
            default:
                utf8.append(byte)
                position += 1
            }
        }
        throw JSONParseError(offset: start, reason: "a string that does not end")
    }

    /// One escape sequence, its character appended as UTF-8; `position` is at the backslash.
    private mutating func escape(into utf8: inout [UInt8]) throws {
        let start = position
        position += 1
        guard position < bytes.count else { throw JSONParseError(offset: start, reason: "a string that does not end") }
        let code = bytes[position]
        position += 1
        switch code {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(code)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hexQuad(escapeAt: start)
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate must be followed by an escaped low one.
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                    throw JSONParseError(offset: start, reason: "an unpaired surrogate")
                }
                position += 2
                let low = try hexQuad(escapeAt: start)
                guard (0xDC00..<0xE000).contains(low) else { throw JSONParseError(offset: start, reason: "an unpaired surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw JSONParseError(offset: start, reason: "an unpaired surrogate")
            }
            guard let character = Unicode.Scalar(scalar) else { throw JSONParseError(offset: start, reason: "an invalid escape") }
            UTF8.encode(character) { utf8.append($0) }
        default:
            throw JSONParseError(offset: start, reason: "an invalid escape")
        }
    }

    private mutating func hexQuad(escapeAt start: Int) throws -> UInt32 {
        guard position + 4 <= bytes.count else { throw JSONParseError(offset: start, reason: "an invalid escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw JSONParseError(offset: start, reason: "an invalid escape")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): position += 1
            default: return
            }
        }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private func unexpected(expecting expected: String? = nil) -> JSONParseError {
        guard position < bytes.count else { return JSONParseError(offset: position, reason: "JSON ends early") }
        let byte = bytes[position]
        let found = byte >= 0x20 && byte < 0x7F ? "\"\(Character(Unicode.Scalar(byte)))\"" : "byte 0x\(String(byte, radix: 16))"
        return JSONParseError(offset: position, reason: "unexpected \(found)" + (expected.map { ", expected \($0)," } ?? ""))
    }
}
