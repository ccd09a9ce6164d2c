#if canImport(OpenAPIKit)
    import ContractKit
    import Foundation
    import OpenAPIKit

    /// Turns a JSON Schema into a contract matcher, with an example from the document where it
    /// has one:
    ///
    /// | schema | matcher |
    /// |---|---|
    /// | `const`, a one-value `enum` | the literal |
    /// | `enum` | `one_of` of the literals, the example one of them |
    /// | `format: uuid`, `date-time` | `uuid`, `datetime` |
    /// | `format: email`, `uri`, `date` | `regex` with an example |
    /// | `pattern` | `regex` (anchored as JSON Schema is not) with the example |
    /// | `contentMediaType: application/jwt` | `jwt` |
    /// | `minLength`/`maxLength`, `minimum`/`maximum` | `string`, `integer`, `number` bounds |
    /// | `type: array` | `each` of `items`, `minItems`/`maxItems` as `min`/`max` |
    /// | `type: object` | an object of its properties, those not `required` `optional: true` |
    /// | `oneOf`, `anyOf`; a nullable type | `one_of` of the alternatives; of the type and `null` |
    ///
    /// What a matcher cannot say is noted (``notes``) and matched as loosely as it must be:
    /// `not` becomes `any`, an `allOf` of other than objects too.
    ///
    /// ```swift
    /// var builder = SchemaMatcherBuilder(role: .response)
    /// let matcher = builder.matcher(schema, example: nil, at: "$")
    /// ```
    struct SchemaMatcherBuilder {
        /// A request's matchers need an example to send (or a value they can generate); a
        /// response's are what the provider must answer.
        enum Role {
            case request, response
        }

        let role: Role
        /// `(path, message)` for what could not be carried exactly.
        private(set) var notes: [(path: String, message: String)] = []
        /// Whether every object met was closed (`additionalProperties: false`): the response is
        /// then `strict`.
        private(set) var allObjectsClosed = true
        private var sawObject = false

        init(role: Role) {
            self.role = role
        }

        /// Whether the response should be `strict: true`.
        var strict: Bool { sawObject && allObjectsClosed }

        /// The matcher for `schema` at `path`; `example` is the document's value there, if any.
        mutating func matcher(_ schema: DereferencedJSONSchema, example given: JSONValue?, at path: String) -> Matcher {
            matcher(schema, example: given, at: path, nullable: schema.nullable)
        }

        /// With `nullable` false, the schema's own type without its null.
        private mutating func matcher(_ schema: DereferencedJSONSchema, example given: JSONValue?, at path: String, nullable: Bool)
            -> Matcher
        {
            let example = given ?? Self.json(schema.examples.first) ?? Self.json(schema.defaultValue)
            if let allowed = schema.allowedValues?.compactMap({ Self.json($0) }), !allowed.isEmpty {
                return enumeration(allowed, example: example, at: path)
            }
            if nullable, case .null = schema {
            } else if nullable {
                let nonNull = matcher(schema, example: example == .null ? nil : example, at: path, nullable: false)
                return checked(.oneOf([nonNull, Matcher(.null)]), example)
            }
            switch schema {
            case .null:
                return Matcher(.null)
            case .boolean:
                return checked(.boolean, example)
            case .integer(_, let context):
                let min = context.minimum.map { Double($0.exclusive ? $0.value + 1 : $0.value) }
                let max = context.maximum.map { Double($0.exclusive ? $0.value - 1 : $0.value) }
                if context.multipleOf != nil { note(path, "multipleOf is not carried") }
                return checked(.integer(min: min, max: max), example)
            case .number(_, let context):
                if context.minimum?.exclusive == true || context.maximum?.exclusive == true {
                    note(path, "an exclusive bound is matched as inclusive")
                }
                if context.multipleOf != nil { note(path, "multipleOf is not carried") }
                return checked(.number(min: context.minimum?.value, max: context.maximum?.value), example)
            case .string(let core, let context):
                return string(core, context, example: example, at: path)
            case .object(_, let context):
                return object(context, example: example, at: path)
            case .array(_, let context):
                let elementExample: JSONValue? = if case .array(let elements)? = example { elements.first } else { nil }
                let element = context.items.map { matcher($0, example: elementExample, at: "\(path)[*]") } ?? Matcher(.any)
                if context.uniqueItems { note(path, "uniqueItems is not carried") }
                return checked(.each(of: element, min: context.minItems > 0 ? context.minItems : nil, max: context.maxItems), example)
            case .all(let schemas, _):
                if schemas.count == 1, let only = schemas.first { return matcher(only, example: example, at: path) }
                if let merged = mergedObjects(schemas, example: example, at: path) { return merged }
                note(path, "allOf of \(schemas.count) schemas that are not all objects: matched as any value")
                return Matcher(.any, example: example)
            case .one(let schemas, _), .any(let schemas, _):
                if schemas.count == 1, let only = schemas.first { return matcher(only, example: example, at: path) }
                // Each alternative takes the example only if it fits it (``checked(_:_:)``).
                let alternatives = schemas.enumerated().map { index, alternative in
                    matcher(alternative, example: example, at: "\(path) (alternative \(index + 1))")
                }
                if case .one = schema { note(path, "oneOf: matched as one_of, which also takes a value more than one alternative matches") }
                return checked(.oneOf(alternatives), example)
            case .not:
                note(path, "not: matched as any value")
                return Matcher(.any, example: example)
            case .fragment:
                return Matcher(.any, example: example)
            }
        }

        // MARK: - Kinds

        private func enumeration(_ allowed: [JSONValue], example: JSONValue?, at path: String) -> Matcher {
            let chosen = example.flatMap { value in allowed.contains(value) ? value : nil } ?? allowed[0]
            if allowed.count == 1 { return Matcher.literal(chosen) }
            return Matcher(.oneOf(allowed.map(Matcher.literal)), example: chosen)
        }

        private mutating func string(
            _ core: JSONSchema.CoreContext<JSONTypeFormat.StringFormat>, _ context: JSONSchema.StringContext, example: JSONValue?,
            at path: String
        ) -> Matcher {
            // A kind the media type names (`application/jwt`), before any pattern; one the format
            // names (`uuid`), after it.
            if let mediaType = context.contentMediaType?.rawValue,
                let named = MatcherKinds.recognizing(schema: ["type": "string", "contentMediaType": .string(mediaType)])
            {
                return checked(named, example)
            }
            let bounds = Matcher.Kind.string(minLength: context.minLength > 0 ? context.minLength : nil, maxLength: context.maxLength)
            if let pattern = context.pattern {
                if !core.format.rawValue.isEmpty { note(path, "format \(core.format.rawValue) with a pattern: the pattern is matched") }
                return regex(Self.wholeMatch(pattern), example: example, fallback: bounds, at: path)
            }
            if let named = MatcherKinds.recognizing(schema: ["type": "string", "format": .string(core.format.rawValue)]) {
                return checked(named, example)
            }
            switch core.format.rawValue {
            case "email":
                return regex(#"[^@\s]+@[^@\s]+"#, example: example ?? .string("user@example.com"), fallback: bounds, at: path)
            case "uri", "url":
                return regex(
                    #"[A-Za-z][A-Za-z0-9+.-]*:\S*"#, example: example ?? .string("https://example.com/"), fallback: bounds, at: path)
            case "date":
                return regex(#"[0-9]{4}-[0-9]{2}-[0-9]{2}"#, example: example ?? .string("2026-01-01"), fallback: bounds, at: path)
            case "", "password", "binary", "byte":
                return checked(bounds, example)
            default:
                note(path, "format \(core.format.rawValue) is not checked: matched as a string")
                return checked(bounds, example)
            }
        }

        /// A `regex` with its example; without a valid one (the stub and the verifier need a
        /// value) the `fallback` string matcher, noted.
        private mutating func regex(_ pattern: String, example: JSONValue?, fallback: Matcher.Kind, at path: String) -> Matcher {
            guard (try? Regex(pattern)) != nil else {
                note(path, "the pattern /\(pattern)/ is not a regular expression Swift reads: matched as a string")
                return checked(fallback, example)
            }
            let matcher = Matcher(.regex(pattern), example: example)
            if let example, matcher.mismatches(in: example).isEmpty { return matcher }
            note(path, "the pattern /\(pattern)/ has no example that matches it: matched as a string")
            return checked(fallback, example)
        }

        private mutating func object(_ context: DereferencedJSONSchema.ObjectContext, example: JSONValue?, at path: String) -> Matcher {
            object(
                properties: context.properties.map { ($0.key, $0.value) }, required: Set(context.requiredProperties),
                closed: context.additionalProperties?.a == false, example: example, at: path
            )
        }

        private mutating func object(
            properties: [(String, DereferencedJSONSchema)], required: Set<String>, closed: Bool, example: JSONValue?, at path: String
        ) -> Matcher {
            sawObject = true
            if !closed { allObjectsClosed = false }
            let shown: [String: JSONValue]? = if case .object(let members)? = example { members } else { nil }
            if properties.isEmpty {
                // A map of any keys: what the example shows, or any object.
                if role == .request, let shown { return Matcher.literal(.object(shown)) }
                return Matcher(.object([:]))
            }
            var members: [String: Matcher] = [:]
            for (name, property) in properties {
                if role == .response && property.writeOnly { continue }
                if role == .request && property.readOnly { continue }
                let member = matcher(property, example: shown?[name], at: Self.childPath(path, name))
                members[name] = required.contains(name) ? member : member.optional(true)
            }
            return Matcher(.object(members))
        }

        /// `allOf` of object schemas, as one object: every property, every required name.
        private mutating func mergedObjects(_ schemas: [DereferencedJSONSchema], example: JSONValue?, at path: String) -> Matcher? {
            var properties: [(String, DereferencedJSONSchema)] = []
            var required = Set<String>()
            var closed = false
            for schema in schemas {
                guard case .object(_, let context) = schema else { return nil }
                for (name, property) in context.properties where !properties.contains(where: { $0.0 == name }) {
                    properties.append((name, property))
                }
                required.formUnion(context.requiredProperties)
                closed = closed || context.additionalProperties?.a == false
            }
            return object(properties: properties, required: required, closed: closed, example: example, at: path)
        }

        // MARK: - Helpers

        /// `kind` with `example` when the example satisfies it (the loader checks examples).
        private func checked(_ kind: Matcher.Kind, _ example: JSONValue?) -> Matcher {
            let plain = Matcher(kind)
            guard let example, plain.mismatches(in: example).isEmpty else { return plain }
            return Matcher(kind, example: example)
        }

        private mutating func note(_ path: String, _ message: String) {
            notes.append((path, message))
        }

        /// A JSON Schema pattern (found anywhere in the string unless anchored) as a pattern the
        /// whole string must match.
        static func wholeMatch(_ pattern: String) -> String {
            var body = pattern
            var anchoredStart = false
            var anchoredEnd = false
            if body.hasPrefix("^") {
                body.removeFirst()
                anchoredStart = true
            }
            if body.hasSuffix("$") && !body.hasSuffix("\\$") {
                body.removeLast()
                anchoredEnd = true
            }
            if anchoredStart && anchoredEnd { return Self.unwrapped(body) }
            return (anchoredStart ? "" : ".*") + "(?:\(body))" + (anchoredEnd ? "" : ".*")
        }

        /// `(?:x)` → `x` when the group spans the whole pattern.
        private static func unwrapped(_ pattern: String) -> String {
            guard pattern.hasPrefix("(?:"), pattern.hasSuffix(")") else { return pattern }
            var depth = 0
            var escaped = false
            for (index, character) in pattern.enumerated() {
                if escaped {
                    escaped = false
                    continue
                }
                if character == "\\" {
                    escaped = true
                    continue
                }
                if character == "(" { depth += 1 }
                if character == ")" {
                    depth -= 1
                    if depth == 0 && index != pattern.count - 1 { return pattern }
                }
            }
            return String(pattern.dropFirst(3).dropLast())
        }

        static func childPath(_ path: String, _ key: String) -> String {
            let simple = !key.isEmpty && key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } && !(key.first?.isNumber ?? true)
            return simple ? "\(path).\(key)" : "\(path)[\(JSONValue.string(key).description)]"
        }

        /// An OpenAPIKit value as JSON.
        static func json(_ value: AnyCodable?) -> JSONValue? {
            guard let value, let data = try? JSONEncoder().encode(value) else { return nil }
            return try? JSONValue(parsing: data)
        }
    }
#endif
