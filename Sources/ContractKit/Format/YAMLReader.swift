import Foundation
import Yams

/// Reads Yams nodes into values, collecting every problem with its line instead of
/// stopping at the first.
struct YAMLReader {
    let file: String
    private(set) var diagnostics: [ContractDiagnostic] = []

    init(file: String) {
        self.file = file
    }

    mutating func error(_ node: Node?, _ message: String) {
        error(at: node?.mark, message)
    }

    mutating func error(at mark: Mark?, _ message: String) {
        diagnostics.append(ContractDiagnostic(file: file, line: mark?.line ?? 0, column: mark?.column ?? 0, message: message))
    }

    /// The pairs of a mapping with string keys; reports keys outside `allowed` and missing `required` ones.
    mutating func mapping(_ node: Node, _ what: String, allowed: [String]? = nil, required: [String] = []) -> [(key: String, node: Node)]? {
        guard case .mapping(let mapping) = node else {
            error(node, "\(what) must be a mapping, not \(describe(node))")
            return nil
        }
        var pairs: [(key: String, node: Node)] = []
        var seen = Set<String>()
        for (keyNode, value) in mapping {
            guard case .scalar(let scalar) = keyNode else {
                error(keyNode, "keys of \(what) must be plain text")
                continue
            }
            if let allowed, !allowed.contains(scalar.string) {
                error(keyNode, "unknown key '\(scalar.string)' in \(what) (allowed: \(allowed.joined(separator: ", ")))")
                continue
            }
            if !seen.insert(scalar.string).inserted {
                error(keyNode, "duplicate key '\(scalar.string)' in \(what)")
                continue
            }
            pairs.append((scalar.string, value))
        }
        for key in required where !seen.contains(key) {
            error(node, "\(what) needs '\(key)'")
        }
        return pairs
    }

    mutating func string(_ node: Node, _ what: String) -> String? {
        guard case .scalar(let scalar) = node, plainValue(scalar) == nil || isString(scalar) else {
            error(node, "\(what) must be text, not \(describe(node))")
            return nil
        }
        return scalar.string
    }

    /// Text from any scalar (numbers and booleans as written), for headers and query values.
    mutating func scalarText(_ node: Node, _ what: String) -> String? {
        guard case .scalar(let scalar) = node else {
            error(node, "\(what) must be a single value, not \(describe(node))")
            return nil
        }
        return scalar.string
    }

    mutating func integer(_ node: Node, _ what: String) -> Int? {
        guard case .integer(let value)? = scalarJSON(node) else {
            error(node, "\(what) must be an integer, not \(describe(node))")
            return nil
        }
        return value
    }

    mutating func number(_ node: Node, _ what: String) -> Double? {
        switch scalarJSON(node) {
        case .integer(let value)?: return Double(value)
        case .number(let value)?: return value
        default:
            error(node, "\(what) must be a number, not \(describe(node))")
            return nil
        }
    }

    mutating func bool(_ node: Node, _ what: String) -> Bool? {
        guard case .bool(let value)? = scalarJSON(node) else {
            error(node, "\(what) must be true or false, not \(describe(node))")
            return nil
        }
        return value
    }

    /// Any YAML value as JSON.
    mutating func json(_ node: Node, _ what: String) -> JSONValue? {
        switch node {
        case .scalar:
            return scalarJSON(node)
        case .sequence(let sequence):
            var elements: [JSONValue] = []
            for element in sequence {
                guard let value = json(element, what) else { return nil }
                elements.append(value)
            }
            return .array(elements)
        case .mapping:
            guard let pairs = mapping(node, what) else { return nil }
            var members: [String: JSONValue] = [:]
            for (key, value) in pairs {
                guard let converted = json(value, what) else { return nil }
                members[key] = converted
            }
            return .object(members)
        case .alias:
            error(node, "YAML aliases are not supported in \(what)")
            return nil
        }
    }

    /// A scalar as JSON: plain scalars follow YAML's core schema, quoted ones are strings.
    func scalarJSON(_ node: Node) -> JSONValue? {
        guard case .scalar(let scalar) = node else { return nil }
        return plainValue(scalar) ?? .string(scalar.string)
    }

    private func isString(_ scalar: Node.Scalar) -> Bool {
        if case .string? = plainValue(scalar) { return true }
        return false
    }

    /// The non-string value a plain scalar stands for, or nil for text.
    private func plainValue(_ scalar: Node.Scalar) -> JSONValue? {
        guard scalar.style == .plain else { return nil }
        let text = scalar.string
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        default: break
        }
        if let value = Int(text) { return .integer(value) }
        if text.range(of: #"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$"#, options: .regularExpression) != nil,
            let value = Double(text)
        {
            return .number(value)
        }
        return nil
    }

    func describe(_ node: Node) -> String {
        switch node {
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .alias: "an alias"
        case .scalar(let scalar):
            switch plainValue(scalar) {
            case .null?: "null"
            case .bool?: "a boolean"
            case .integer?, .number?: "a number"
            default: "text"
            }
        }
    }
}
