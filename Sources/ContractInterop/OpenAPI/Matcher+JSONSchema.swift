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

    /// This matcher as a JSON Schema (2020-12, as OpenAPI 3.1 uses): each kind gives its own
    /// (``MatcherKind/jsonSchema(child:)``: `uuid` → `format: uuid`, bounds → `minimum`/
    /// `maximum`, `one_of` → `anyOf`, …), an optional key → not `required`, `strict` → objects with
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
        case .typed(let kind):
            schema = kind.jsonSchema { $0.jsonSchema(role: role, strict: strict, variables: variables) }
        }
        if let example = sampleExample, !example.description.contains("{{") { schema["examples"] = [example] }
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
        default: value = sampleExample
        }
        guard let value, !value.description.contains("{{") else { return nil }
        return value
    }
}
