import ContractKit

/// The JSON Schema that accepts what either of two schemas accepts, kept as plain as the
/// two allow: two objects give one object (properties of both, required those required by
/// both), two strings one string (with the looser bounds), two constants an `enum` (up to
/// ``maxEnum`` values), and schemas of different types an `anyOf`.
///
/// ```swift
/// JSONSchemaUnion.of(["type": "string", "const": "a"], ["type": "string", "const": "b"])
/// // ["type": "string", "enum": ["a", "b"]]
/// ```
public enum JSONSchemaUnion {
    /// Beyond this many distinct constants, the union keeps only the type.
    public static let maxEnum = 12

    /// The union of all of `schemas`; nil when there are none.
    public static func of(_ schemas: [[String: JSONValue]]) -> [String: JSONValue]? {
        guard var union = schemas.first else { return nil }
        for schema in schemas.dropFirst() { union = of(union, schema) }
        return union
    }

    /// The union of `a` and `b`.
    public static func of(_ a: [String: JSONValue], _ b: [String: JSONValue]) -> [String: JSONValue] {
        if a == b { return a }
        if a.isEmpty || b.isEmpty { return [:] }
        if case .array(let alternatives)? = a["anyOf"] { return anyOf(alternatives, adding: b) }
        if case .array(let alternatives)? = b["anyOf"] { return anyOf(alternatives, adding: a) }
        guard let type = a["type"], type == b["type"], case .string(let name) = type else {
            return anyOf([.object(a)], adding: b)
        }
        var union: [String: JSONValue] = ["type": type]
        union["description"] = same("description", a, b)
        union["format"] = same("format", a, b)
        union["pattern"] = same("pattern", a, b)
        union["contentMediaType"] = same("contentMediaType", a, b)
        union["examples"] = same("examples", a, b)
        if let values = constants(a).flatMap({ first in constants(b).map { first + $0 } }) {
            var distinct: [JSONValue] = []
            for value in values where !distinct.contains(value) { distinct.append(value) }
            if distinct.count <= maxEnum { union["enum"] = .array(distinct) }
        }
        union["minLength"] = bound("minLength", a, b, lower: true)
        union["maxLength"] = bound("maxLength", a, b, lower: false)
        union["minimum"] = bound("minimum", a, b, lower: true)
        union["maximum"] = bound("maximum", a, b, lower: false)
        union["minItems"] = bound("minItems", a, b, lower: true)
        union["maxItems"] = bound("maxItems", a, b, lower: false)
        switch name {
        case "object":
            let left = properties(a)
            let right = properties(b)
            var merged: [String: JSONValue] = [:]
            for key in Set(left.keys).union(right.keys) {
                switch (left[key], right[key]) {
                case (let l?, let r?): merged[key] = .object(of(l, r))
                case (let l?, nil): merged[key] = .object(l)
                case (nil, let r?): merged[key] = .object(r)
                case (nil, nil): break
                }
            }
            if !merged.isEmpty { union["properties"] = .object(merged) }
            let required = Set(names("required", a)).intersection(names("required", b))
            if !required.isEmpty { union["required"] = .array(required.sorted().map(JSONValue.string)) }
            if a["additionalProperties"] == false, b["additionalProperties"] == false { union["additionalProperties"] = false }
        case "array":
            if case .object(let l)? = a["items"], case .object(let r)? = b["items"] {
                union["items"] = .object(of(l, r))
            }
        default:
            break
        }
        return union
    }

    private static func anyOf(_ alternatives: [JSONValue], adding schema: [String: JSONValue]) -> [String: JSONValue] {
        var result = alternatives
        let additions: [JSONValue] = if case .array(let more)? = schema["anyOf"] { more } else { [.object(schema)] }
        for addition in additions {
            guard case .object(let new) = addition else { continue }
            // Join with an alternative of the same type, else add one.
            if let index = result.firstIndex(where: {
                if case .object(let old) = $0 { old["type"] != nil && old["type"] == new["type"] } else { false }
            }),
                case .object(let old) = result[index]
            {
                result[index] = .object(of(old, new))
            } else if !result.contains(addition) {
                result.append(addition)
            }
        }
        return ["anyOf": .array(result)]
    }

    private static func same(_ key: String, _ a: [String: JSONValue], _ b: [String: JSONValue]) -> JSONValue? {
        a[key] == b[key] ? a[key] : nil
    }

    private static func constants(_ schema: [String: JSONValue]) -> [JSONValue]? {
        if let value = schema["const"] { return [value] }
        if case .array(let values)? = schema["enum"] { return values }
        return nil
    }

    private static func properties(_ schema: [String: JSONValue]) -> [String: [String: JSONValue]] {
        guard case .object(let members)? = schema["properties"] else { return [:] }
        return members.compactMapValues { if case .object(let property) = $0 { property } else { nil } }
    }

    private static func names(_ key: String, _ schema: [String: JSONValue]) -> [String] {
        guard case .array(let values)? = schema[key] else { return [] }
        return values.compactMap { if case .string(let name) = $0 { name } else { nil } }
    }

    /// The looser of two bounds; none when either side has none.
    private static func bound(_ key: String, _ a: [String: JSONValue], _ b: [String: JSONValue], lower: Bool) -> JSONValue? {
        guard let l = a[key]?.doubleValue, let r = b[key]?.doubleValue else { return nil }
        let looser = lower ? Swift.min(l, r) : Swift.max(l, r)
        return JSONValue.numeric(looser)
    }
}
