import Foundation
import Yams

/// Yams nodes for recorded contracts: literals quoted where a plain scalar would read as
/// something else, matchers as flow mappings (`{ match: uuid }`).
enum RecordedYAML {
    static func text(_ string: String) -> Node {
        .scalar(Node.Scalar(string, .implicit, needsQuotes(string) ? .doubleQuoted : .plain))
    }

    static func value(_ json: JSONValue) -> Node {
        switch json {
        case .string(let string): text(string)
        case .integer, .number, .bool: .scalar(Node.Scalar(json.description, .implicit, .plain))
        case .null: .scalar(Node.Scalar("null", .implicit, .plain))
        case .array(let elements): .sequence(Node.Sequence(elements.map(value), .implicit, elements.isEmpty ? .flow : .block))
        case .object(let members):
            .mapping(Node.Mapping(members.keys.sorted().compactMap { key in members[key].map { (text(key), value($0)) } }, .implicit, members.isEmpty ? .flow : .block))
        }
    }

    static func matcher(_ matcher: Matcher) -> Node {
        var pairs: [(Node, Node)] = []
        func add(_ key: String, _ json: JSONValue?) {
            if let json { pairs.append((text(key), value(json))) }
        }
        switch matcher.kind {
        case .literal(let json): return value(json)
        case .object(let members):
            return .mapping(Node.Mapping(members.keys.sorted().compactMap { key in members[key].map { (text(key), self.matcher($0)) } }, .implicit, members.isEmpty ? .flow : .block))
        case .array(let elements):
            return .sequence(Node.Sequence(elements.map(self.matcher), .implicit, elements.isEmpty ? .flow : .block))
        case .string(let minLength, let maxLength):
            add("match", .string("string"))
            add("min_length", minLength.map(JSONValue.integer))
            add("max_length", maxLength.map(JSONValue.integer))
        case .integer: add("match", .string("integer"))
        case .number: add("match", .string("number"))
        case .uuid: add("match", .string("uuid"))
        case .datetime: add("match", .string("datetime"))
        case .jwt: add("match", .string("jwt"))
        case .regex(let pattern):
            add("match", .string("regex"))
            add("pattern", .string(pattern))
        case .boolean, .null, .any, .each, .jwks:
            add("match", .string(matcher.summary))
        }
        add("example", matcher.example)
        return .mapping(Node.Mapping(pairs, .implicit, .flow))
    }

    static func mapping(_ pairs: [(String, Node)]) -> Node {
        .mapping(Node.Mapping(pairs.map { (text($0.0), $0.1) }, .implicit, .block))
    }

    /// Whether `string` must be quoted to read back as this string.
    static func needsQuotes(_ string: String) -> Bool {
        guard let first = string.unicodeScalars.first, let last = string.unicodeScalars.last else { return true }
        if ["null", "Null", "NULL", "~", "true", "True", "TRUE", "false", "False", "FALSE", "yes", "no", "on", "off"].contains(string) { return true }
        if Double(string) != nil || Int(string) != nil { return true }
        if string.range(of: #"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$"#, options: .regularExpression) != nil { return true }
        if !(CharacterSet.letters.contains(first) || first == "/" || first == "_") || last == " " { return true }
        if string.contains(": ") || string.contains(" #") { return true }
        return string.unicodeScalars.contains { !(CharacterSet.alphanumerics.contains($0) || " _-./()+;=@$%^&*?!~<>".unicodeScalars.contains($0)) || $0.value > 127 }
    }
}
