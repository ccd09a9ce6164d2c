import ContractKit

/// The contracts' deliveries (`delivers:`) as OpenAPI 3.1 `webhooks`, one per kind of
/// message: named after the body's literal `kind` when it has one (`password_reset`), else
/// after the interaction that sends it.
///
/// Webhooks rather than the operation's `callbacks`: a callback's URL is an expression over
/// the request that triggers it (`{$request.body#/callbackUrl}`), whereas a delivery goes to
/// a receiver the provider is configured with once (authd's `--delivery-url`), which is what
/// 3.1's top-level `webhooks` describes. The webhook's description names the interaction
/// (and so the operation) that sends it.
///
/// ```swift
/// let webhooks = OpenAPIWebhooks.of(suite.contracts)   // ["password_reset": {"post": {…}}]
/// ```
enum OpenAPIWebhooks {
    /// The `webhooks` object; empty when no interaction delivers anything.
    static func of(_ contracts: [Contract]) -> [String: JSONValue] {
        var operations: [String: [String: JSONValue]] = [:]
        for contract in contracts {
            let variables = contract.savedMatchers
            for interaction in contract.interactions {
                for delivery in interaction.delivers {
                    let name = Self.name(of: delivery, in: interaction)
                    let method = delivery.method.lowercased()
                    var item = operations[name] ?? [:]
                    let operation = Self.operation(delivery, of: interaction, variables: variables)
                    if case .object(let existing)? = item[method] {
                        item[method] = .object(Self.joined(existing, operation))
                    } else {
                        item[method] = .object(operation)
                    }
                    operations[name] = item
                }
            }
        }
        return operations.mapValues { .object($0) }
    }

    private static func name(of delivery: Delivery, in interaction: Interaction) -> String {
        if case .object(let members)? = delivery.body?.kind, case .literal(.string(let kind))? = members["kind"]?.kind,
            !Template.mayHavePlaceholders(kind), !kind.isEmpty
        {
            return kind
        }
        return Contract.identifier(interaction.name)
    }

    private static func operation(_ delivery: Delivery, of interaction: Interaction, variables: [String: Matcher]) -> [String: JSONValue] {
        var operation: [String: JSONValue] = [
            "summary": .string("\(delivery.method) \(delivery.path.text) on the receiver the provider delivers to"),
            "description": .string(
                "Sent within \(delivery.within) s when: \(interaction.name) (\(interaction.request.method) \(interaction.request.path.text))."
            ),
            "responses": ["2XX": ["description": "The receiver took the delivery."]],
        ]
        let parameters = delivery.headers.keys.sorted().compactMap { name -> JSONValue? in
            guard let matcher = delivery.headers[name] else { return nil }
            return [
                "name": .string(OpenAPIOperation.headerName(name)), "in": "header", "required": true,
                "schema": .object(matcher.jsonSchema(role: .response, variables: variables)),
            ]
        }
        if !parameters.isEmpty { operation["parameters"] = .array(parameters) }
        if let body = delivery.body {
            var media: [String: JSONValue] = ["schema": .object(body.jsonSchema(role: .response, variables: variables))]
            if let example = body.writtenExample {
                media["examples"] = [
                    OpenAPIOperation.exampleKey(interaction.name, in: [:]): ["summary": .string(interaction.name), "value": example]
                ]
            }
            operation["requestBody"] = ["required": true, "content": ["application/json": .object(media)]]
        }
        return operation
    }

    /// Two deliveries of one kind: their body schemas joined, the first one's description.
    private static func joined(_ existing: [String: JSONValue], _ next: [String: JSONValue]) -> [String: JSONValue] {
        var result = existing
        if case .string(let first)? = existing["description"], case .string(let second)? = next["description"], first != second {
            result["description"] = .string(first + " " + second)
        }
        let path: (JSONValue?) -> [String: JSONValue]? = { value in
            guard case .object(let body)? = value, case .object(let content)? = body["content"],
                case .object(let media)? = content["application/json"],
                case .object(let schema)? = media["schema"]
            else { return nil }
            return schema
        }
        if let a = path(existing["requestBody"]), let b = path(next["requestBody"]) {
            result["requestBody"] = ["required": true, "content": ["application/json": ["schema": .object(JSONSchemaUnion.of(a, b))]]]
        }
        return result
    }
}
