import Foundation

/// Text with `{{name}}` placeholders, filled from variables captured by earlier
/// interactions (or, in `contract.yaml`, from `{{port}}`, `{{scratch}}`, `{{bin.NAME}}`,
/// `{{env.NAME}}` and state parameters). `{{name:-text}}` falls back to `text` when
/// `name` has no value, as in a shell.
///
/// ```swift
/// let template = Template("Bearer {{token}}")
/// template.variables                              // ["token"]
/// try template.render(["token": .string("abc")])   // "Bearer abc"
/// try Template("{{env.PORT:-8080}}").render([:])   // "8080"
/// ```
public struct Template: Sendable, Hashable, CustomStringConvertible {
    /// The text as written.
    public let text: String
    /// The text split into literal runs and placeholders, once.
    private let pieces: [Piece]

    /// Wraps `text`.
    public init(_ text: String) {
        self.text = text
        self.pieces = Self.split(text)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.text == rhs.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }

    /// The names used, in order of appearance (those with a `:-` default, and those in
    /// defaults, included).
    public var variables: [String] {
        pieces.flatMap { piece -> [String] in
            guard case .variable(let name, let fallback) = piece else { return [] }
            return [name] + (fallback?.variables ?? [])
        }
    }

    /// The names that must have a value for the text to render: those without a `:-`
    /// default, and those inside defaults.
    public var requiredVariables: [String] {
        pieces.flatMap { piece -> [String] in
            guard case .variable(let name, let fallback) = piece else { return [] }
            return fallback.map(\.requiredVariables) ?? [name]
        }
    }

    /// The text as written.
    public var description: String { text }

    /// Fills the placeholders; strings are inserted as they are, other values as JSON.
    /// - Throws: ``UndefinedVariable`` when a name has no value.
    public func render(_ values: [String: JSONValue]) throws -> String {
        var result = ""
        for piece in pieces {
            switch piece {
            case .text(let text): result += text
            case .variable(let name, let fallback):
                guard let value = values[name] else {
                    guard let fallback else { throw UndefinedVariable(name: name) }
                    result += try fallback.render(values)
                    continue
                }
                if case .string(let string) = value { result += string } else { result += value.description }
            }
        }
        return result
    }

    /// If the whole text is one placeholder, its name (so a JSON value can keep its type).
    public var soleVariable: String? {
        if pieces.count == 1, case .variable(let name, nil) = pieces[0] { return name }
        return nil
    }

    /// A `{{name}}` with no value.
    public struct UndefinedVariable: Error, Sendable, CustomStringConvertible {
        /// The name.
        public let name: String
        /// `undefined variable 'name'`.
        public var description: String { "undefined variable '\(name)'" }
    }

    private enum Piece: Hashable, Sendable {
        case text(String)
        case variable(String, default: Template?)
    }

    private static func split(_ text: String) -> [Piece] {
        guard mayHavePlaceholders(text) else { return text.isEmpty ? [] : [.text(text)] }
        var pieces: [Piece] = []
        let bytes = Array(text.utf8)
        func isPair(_ at: Int, _ byte: UInt8) -> Bool { at + 1 < bytes.count && bytes[at] == byte && bytes[at + 1] == byte }
        var literalStart = 0
        var index = 0
        while index + 1 < bytes.count {
            guard isPair(index, UInt8(ascii: "{")) else {
                index += 1
                continue
            }
            // The matching `}}`, counting nested `{{…}}` (in a `:-` default).
            var close = index + 2
            var depth = 1
            while close + 1 < bytes.count {
                if isPair(close, UInt8(ascii: "{")) {
                    depth += 1
                    close += 2
                } else if isPair(close, UInt8(ascii: "}")) {
                    depth -= 1
                    if depth == 0 { break }
                    close += 2
                } else {
                    close += 1
                }
            }
            guard depth == 0 else { break }
            if index > literalStart { pieces.append(.text(String(decoding: bytes[literalStart..<index], as: UTF8.self))) }
            let inside = String(decoding: bytes[(index + 2)..<close], as: UTF8.self)
            if let separator = inside.range(of: ":-") {
                let name = inside[..<separator.lowerBound].trimmingCharacters(in: .whitespaces)
                pieces.append(.variable(name, default: Template(String(inside[separator.upperBound...]))))
            } else {
                pieces.append(.variable(inside.trimmingCharacters(in: .whitespaces), default: nil))
            }
            index = close + 2
            literalStart = index
        }
        if literalStart < bytes.count { pieces.append(.text(String(decoding: bytes[literalStart...], as: UTF8.self))) }
        return pieces
    }

    /// Whether `text` contains `{{` at all: a quick test before any parsing.
    /// The stub asks it of every literal of every candidate interaction, so it reads the
    /// string's UTF-8 in place when it can.
    public static func mayHavePlaceholders(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable(hasDoubleBrace) ?? hasDoubleBrace(text.utf8)
    }

    private static func hasDoubleBrace(_ bytes: some Collection<UInt8>) -> Bool {
        var previous: UInt8 = 0
        for byte in bytes {
            if byte == UInt8(ascii: "{"), previous == UInt8(ascii: "{") { return true }
            previous = byte
        }
        return false
    }

}

extension Template {
    /// The values of `{{env.NAME}}`: each variable of `environment` as `env.NAME`.
    ///
    /// ```swift
    /// Template.environmentVariables(["HOME": "/root"])   // ["env.HOME": "/root"]
    /// ```
    public static func environmentVariables(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [String: JSONValue] {
        Dictionary(uniqueKeysWithValues: environment.map { ("env.\($0.key)", JSONValue.string($0.value)) })
    }

    /// `request.base_url`: in a response's example, where the request was sent
    /// (`http://127.0.0.1:8765`), which a stub fills, as WireMock's `{{request.baseUrl}}`.
    public static let requestBaseURL = "request.base_url"

    /// What `{{request.base_url}}` stands for where nothing says where a request was sent:
    /// an example checked against its matcher, or exported (``Matcher/sampleExample``).
    public static let sampleBaseURL = "http://127.0.0.1:8080"
}

extension JSONValue {
    /// Every `{{name}}` inside the strings of this value.
    public var templateVariables: [String] {
        switch self {
        case .string(let text): Template(text).variables
        case .array(let elements): elements.flatMap(\.templateVariables)
        case .object(let members): members.keys.sorted().flatMap { members[$0]?.templateVariables ?? [] }
        default: []
        }
    }

    /// This value with placeholders filled; a string that is exactly `{{name}}` takes the
    /// variable's value with its JSON type.
    public func rendered(_ values: [String: JSONValue]) throws -> JSONValue {
        switch self {
        case .string(let text):
            let template = Template(text)
            if let name = template.soleVariable {
                guard let value = values[name] else { throw Template.UndefinedVariable(name: name) }
                return value
            }
            return .string(try template.render(values))
        case .array(let elements): return .array(try elements.map { try $0.rendered(values) })
        case .object(let members): return .object(try members.mapValues { try $0.rendered(values) })
        default: return self
        }
    }
}
