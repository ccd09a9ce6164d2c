import ContractKit
import Foundation

extension Matcher {
    /// How a matcher becomes a JSON Schema.
    public enum SchemaRole: Sendable {
        /// What a response must hold: literals are `const`.
        case response
        /// What a client may send: literals are examples of their type, since the contract
        /// shows one request among many the provider accepts.
        case request
    }

    /// This matcher as a JSON Schema (2020-12, as OpenAPI 3.1 uses): `uuid` → `format:
    /// uuid`, `datetime` → `format: date-time`, bounds → `minimum`/`maximum`/`minLength`/
    /// `maxLength`, `jwt` → a three-part `pattern` with `contentMediaType: application/jwt`,
    /// `each` → an array with `items` and `minItems`, `one_of` → `anyOf`, an optional
    /// key → not `required`, `strict` → objects with
    /// `additionalProperties: false`, an `example` → `examples`. A string holding
    /// `{{var}}` is a value saved earlier: described by the matcher it was saved from
    /// (`variables`, see ``Contract/savedMatchers``) when it is the sole content, else a string.
    /// In a request, a literal stands for any value of its type (a non-empty string for a
    /// non-empty one), and an object is closed, as the stub matches it.
    ///
    /// ```swift
    /// Matcher(.integer(min: 1, max: nil), example: .integer(900)).jsonSchema(role: .response)
    /// // {"type": "integer", "minimum": 1, "examples": [900]}
    /// ```
    public func jsonSchema(role: SchemaRole, strict: Bool = false, variables: [String: Matcher] = [:]) -> [String: JSONValue] {
        var schema: [String: JSONValue]
        switch kind {
        case .literal(.string(let text)) where Template.mayHavePlaceholders(text):
            let template = Template(text)
            let names = template.variables.map { "{{\($0)}}" }.joined(separator: ", ")
            if let name = template.soleVariable {
                schema = variables[name]?.jsonSchema(role: .request) ?? [:]
                schema["examples"] = nil
            } else {
                schema = ["type": "string"]
            }
            schema["description"] = .string("The value saved as \(names) by an earlier interaction.")
        case .literal(let value):
            schema = ["type": .string(value.typeName)]
            switch role {
            case .response: schema["const"] = value
            case .request:
                schema["examples"] = [value]
                if case .string(let text) = value, !text.isEmpty { schema["minLength"] = 1 }
            }
        case .object(let members):
            schema = ["type": "object"]
            schema["properties"] = .object(members.mapValues { .object($0.jsonSchema(role: role, strict: strict, variables: variables)) })
            let required = members.keys.sorted().filter { members[$0]?.optional != true }
            if !required.isEmpty { schema["required"] = .array(required.map(JSONValue.string)) }
            // A request's object lists its keys, no more (the stub refuses others).
            if strict || role == .request { schema["additionalProperties"] = false }
        case .array(let elements):
            schema = ["type": "array"]
            // A request sends the elements written; a response written with some elements
            // stands for lists of any length (the sessions of another account, say).
            if role == .request {
                schema["minItems"] = .integer(elements.count)
                schema["maxItems"] = .integer(elements.count)
            }
            // One schema every element meets (their union), not `prefixItems`: tools that
            // generate data from a document (schemathesis among them) read it as the older
            // tuple form of `items` and reject the document.
            if let items = JSONSchemaUnion.of(elements.map { $0.jsonSchema(role: role, strict: strict, variables: variables) }) {
                schema["items"] = .object(items)
            }
        case .string(let minLength, let maxLength):
            schema = ["type": "string"]
            schema["minLength"] = minLength.map(JSONValue.integer)
            schema["maxLength"] = maxLength.map(JSONValue.integer)
        case .integer(let min, let max):
            schema = ["type": "integer"]
            schema["minimum"] = min.map(JSONValue.numeric)
            schema["maximum"] = max.map(JSONValue.numeric)
        case .number(let min, let max):
            schema = ["type": "number"]
            schema["minimum"] = min.map(JSONValue.numeric)
            schema["maximum"] = max.map(JSONValue.numeric)
        case .boolean: schema = ["type": "boolean"]
        case .null: schema = ["type": "null"]
        case .any: schema = [:]
        case .regex(let pattern):
            // JSON Schema patterns (ECMA-262) are not anchored, and have no inline flags
            // such as (?s): a pattern with them is kept as a description.
            schema = ["type": "string"]
            if pattern.range(of: #"\(\?[a-zA-Z-]+\)"#, options: .regularExpression) != nil {
                schema["description"] = .string("Matches the regular expression \(pattern).")
            } else {
                schema["pattern"] = .string("^(?:\(pattern))$")
            }
        case .uuid: schema = ["type": "string", "format": "uuid"]
        case .totp(let code):
            schema = ["type": "string", "pattern": .string("^\(code.pattern)$")]
            let hash = code.algorithm == .sha1 ? "" : ", HMAC-\(code.algorithm.rawValue)"
            schema["description"] = .string("A TOTP code (RFC 6238\(hash), \(code.period)-second steps) of the key the client was given.")
        case .webauthn(let credential): schema = credential.jsonSchema
        case .basicAuth:
            // The operation's `basicAuth` security scheme says what it is; the value is the header's.
            schema = [
                "type": "string", "pattern": "^[Bb][Aa][Ss][Ii][Cc] [A-Za-z0-9+/=]+$", "description": "HTTP Basic credentials (RFC 7617).",
            ]
        case .datetime: schema = ["type": "string", "format": "date-time"]
        case .jwt(let claims):
            // The media type RFC 7519 registers, which `contract import openapi` reads back as `jwt`.
            schema = ["type": "string", "pattern": .string(JWTShape.pattern), "contentMediaType": "application/jwt"]
            schema["description"] = .string(
                claims.isEmpty ? "A compact JWT." : "A compact JWT with the claims \(claims.keys.sorted().joined(separator: ", ")).")
        case .each(let element, let min, let max):
            schema = ["type": "array", "items": .object(element.jsonSchema(role: role, strict: strict, variables: variables))]
            schema["minItems"] = min.map(JSONValue.integer)
            schema["maxItems"] = max.map(JSONValue.integer)
        case .oneOf(let alternatives):
            // anyOf, not oneOf: alternatives may overlap (a string and a uuid), and a value
            // matching two of them is still what the contract allows.
            schema = ["anyOf": .array(alternatives.map { .object($0.jsonSchema(role: role, strict: strict, variables: variables)) })]
        case .jwks(let min, let max):
            var keys: [String: JSONValue] = [
                "type": "array",
                "items": [
                    "type": "object", "required": ["kty", "kid"],
                    "properties": ["kty": ["type": "string", "minLength": 1], "kid": ["type": "string", "minLength": 1]],
                ],
            ]
            keys["minItems"] = min.map(JSONValue.integer)
            keys["maxItems"] = max.map(JSONValue.integer)
            schema = [
                "type": "object", "required": ["keys"], "properties": ["keys": .object(keys)],
                "description": "A JSON Web Key Set (RFC 7517).",
            ]
        }
        if let example, !example.description.contains("{{") { schema["examples"] = [example] }
        return schema
    }
}

extension Matcher {
    /// The value the contract itself shows for this matcher: literals as written, typed
    /// matchers their `example`; nil when some part has neither (so a document built from
    /// it is the same on every run) or holds a `{{var}}`.
    ///
    /// ```swift
    /// Matcher.literal(.object(["status": .string("ok")])).writtenExample   // {"status": "ok"}
    /// Matcher(.uuid).writtenExample                                         // nil
    /// ```
    public var writtenExample: JSONValue? {
        let value: JSONValue?
        switch kind {
        case .literal(let literal): value = literal
        case .object(let members):
            var object: [String: JSONValue] = [:]
            for (key, member) in members {
                guard let example = member.writtenExample else { return nil }
                object[key] = example
            }
            value = .object(object)
        case .array(let elements):
            var array: [JSONValue] = []
            for element in elements {
                guard let example = element.writtenExample else { return nil }
                array.append(example)
            }
            value = .array(array)
        default: value = example
        }
        guard let value, !value.description.contains("{{") else { return nil }
        return value
    }
}
