import ContractKit
import Foundation

/// Builds an OpenAPI 3.1 document from contracts: one operation per path and method, its
/// parameters, request body and responses (per status) described by the contracts'
/// matchers, with the interactions as examples.
///
/// - The request is described by the interactions that succeed (2xx): the ones that show a
///   bad request are the provider refusing what the schema does not allow.
/// - Response schemas of one status are joined (``JSONSchemaUnion``); the bodies of every
///   4xx and 5xx response that are objects share one `Error` component when they have keys
///   in common.
/// - `Authorization: Bearer {{token}}` becomes an HTTP bearer security scheme, a
///   `{ match: basic_auth, … }` header an HTTP basic one.
/// - A `form:` body is `application/x-www-form-urlencoded` content (an object of its fields,
///   the non-optional ones required), a `multipart:` body `multipart/form-data`.
/// - A path and method answered only 404 or 405 (a contract showing what the router
///   refuses) is not an operation.
/// - Deliveries (`delivers:`) are `webhooks` (``OpenAPIWebhooks`` says why not `callbacks`).
/// - A status `contract.yaml` says a route also answers (``alsoAnswers``) is documented
///   with the responses of that status the contracts show on other routes.
/// - Each operation carries its interactions as written under `x-contract-interactions`
///   (``CarriedInteractions``), for `contract import openapi` to give the contracts back.
///
/// ```swift
/// let suite = ContractLoader.load(directory: "contracts")
/// let document = OpenAPIExporter(title: "authd", version: "1.0.0").document(for: suite.contracts)
/// print(try document.prettyText())
/// ```
public struct OpenAPIExporter: Sendable {
    /// `info.title`.
    public var title: String
    /// `info.version`.
    public var version: String
    /// Whether operations carry their interactions as written (`x-contract-interactions`, for
    /// `contract import openapi`; about three times the document's size for authd's contracts).
    public var carriesInteractions = true
    /// Statuses routes also answer that their own interactions cannot show
    /// (`contract.yaml`'s `openapi: also_answers:`).
    public var alsoAnswers: [ProviderConfiguration.AlsoAnswered] = []

    /// Creates an exporter.
    public init(title: String, version: String) {
        self.title = title
        self.version = version
    }

    /// The document.
    public func document(for contracts: [Contract]) -> JSONValue {
        var operations: [OperationKey: [OpenAPIOperation.Use]] = [:]
        var order: [OperationKey] = []
        for contract in contracts {
            let variables = contract.savedMatchers
            // A URL known only when the run saves it (a discovery document's endpoint) has no path here.
            for (position, interaction) in contract.interactions.enumerated() where interaction.request.path.savedURL == nil {
                let key = OperationKey(interaction.request)
                if operations[key] == nil { order.append(key) }
                let carried = CarriedInteractions.entry(interaction, of: contract, position: position)
                operations[key, default: []].append(
                    OpenAPIOperation.Use(contract: contract.name, interaction: interaction, variables: variables, carried: carried))
            }
        }

        var built: [(OperationKey, OpenAPIOperation)] = []
        var usedIDs = Set<String>()
        // A path and method answered only 404 or 405 shows an operation that is absent.
        let absent = order.filter { key in operations[key]?.allSatisfy { [404, 405].contains($0.interaction.response.status) } ?? true }
        order.removeAll { absent.contains($0) }
        for key in order {
            var operation = OpenAPIOperation(key: key, uses: operations[key] ?? [])
            operation.id = Self.freeID(key.operationID, in: &usedIDs)
            for answer in alsoAnswers where answer.operationKey == key {
                let shown = order.filter { $0 != key }.flatMap { operations[$0] ?? [] }
                operation.also += shown.filter { $0.interaction.response.status == answer.status }
            }
            built.append((key, operation))
        }

        let errorSchema = Self.sharedErrorSchema(built.map(\.1))
        var paths: [String: JSONValue] = [:]
        var usesBearer = false
        var usesBasic = false
        for (key, operation) in built {
            usesBearer = usesBearer || operation.usesBearer
            usesBasic = usesBasic || operation.usesBasic
            var item: [String: JSONValue] = if case .object(let existing)? = paths[key.path] { existing } else { [:] }
            var json = operation.json(sharedError: errorSchema != nil)
            if !carriesInteractions { json[CarriedInteractions.key] = nil }
            item[key.method] = .object(json)
            paths[key.path] = .object(item)
        }

        var components: [String: JSONValue] = [:]
        if let errorSchema { components["schemas"] = ["Error": .object(errorSchema)] }
        var schemes: [String: JSONValue] = [:]
        if usesBearer { schemes["bearerAuth"] = ["type": "http", "scheme": "bearer"] }
        if usesBasic { schemes["basicAuth"] = ["type": "http", "scheme": "basic"] }
        if !schemes.isEmpty { components["securitySchemes"] = .object(schemes) }
        var document: [String: JSONValue] = [
            "openapi": "3.1.0",
            "info": ["title": .string(title), "version": .string(version)],
            "paths": .object(paths),
        ]
        if !components.isEmpty { document["components"] = .object(components) }
        // The interactions of no operation, carried for `contract import openapi` as the
        // operations carry theirs.
        let unlisted = absent.flatMap { operations[$0] ?? [] }.map(\.carried)
        if carriesInteractions && !unlisted.isEmpty { document[CarriedInteractions.key] = .array(unlisted) }
        let webhooks = OpenAPIWebhooks.of(contracts)
        if !webhooks.isEmpty { document["webhooks"] = .object(webhooks) }
        return .object(document)
    }

    /// The entries of ``alsoAnswers`` that cannot be documented: a route no interaction has,
    /// or a status no interaction of another route shows. (`contract export openapi` refuses them.)
    public func undocumentable(in contracts: [Contract]) -> [String] {
        var shownBy: [OperationKey: Set<Int>] = [:]
        for contract in contracts {
            for interaction in contract.interactions {
                shownBy[OperationKey(interaction.request), default: []].insert(interaction.response.status)
            }
        }
        return alsoAnswers.compactMap { answer in
            let route = "\(answer.method) \(answer.path)"
            guard shownBy[answer.operationKey] != nil else { return "\(answer.status) for \(route): no interaction has that route" }
            let elsewhere = shownBy.contains { $0.key != answer.operationKey && $0.value.contains(answer.status) }
            return elsewhere ? nil : "\(answer.status) for \(route): no interaction of another route shows \(answer.status)"
        }
    }

    static let errorReference: [String: JSONValue] = ["$ref": "#/components/schemas/Error"]

    /// The union of every error response's object schema, when they share required keys.
    private static func sharedErrorSchema(_ operations: [OpenAPIOperation]) -> [String: JSONValue]? {
        let schemas = operations.flatMap(\.errorBodySchemas)
        guard schemas.count >= 2, let union = JSONSchemaUnion.of(schemas) else { return nil }
        guard union["type"] == "object", case .array(let required)? = union["required"], !required.isEmpty else { return nil }
        return union
    }

    /// The path with `{name}` parameters; a segment holding `{{var}}` becomes `{var}`.
    static func openAPIPath(_ path: RequestPath) -> String {
        let segments = path.segments.map { segment -> String in
            switch segment {
            case .parameter(let name): return "{\(name)}"
            case .text(let template):
                guard let name = template.soleVariable else { return template.text }
                return "{\(name)}"
            }
        }
        return "/" + segments.joined(separator: "/")
    }

    private static func freeID(_ base: String, in used: inout Set<String>) -> String {
        var candidate = base
        var number = 2
        while !used.insert(candidate).inserted {
            candidate = "\(base)\(number)"
            number += 1
        }
        return candidate
    }
}

/// One path and method.
struct OperationKey: Hashable {
    let path: String
    let method: String

    init(path: String, method: String) {
        self.path = path
        self.method = method
    }

    /// The operation a request is one of: its OpenAPI path, its method in lower case.
    init(_ request: RequestSpec) {
        self.init(path: OpenAPIExporter.openAPIPath(request.path), method: request.method.lowercased())
    }

    /// `postTokenRefresh`, `getNotesById`.
    var operationID: String {
        var words: [String] = []
        for segment in path.split(separator: "/") {
            if segment.hasPrefix("{"), segment.hasSuffix("}") {
                words.append("By")
                words.append(String(segment.dropFirst().dropLast()))
            } else {
                words += segment.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
            }
        }
        return method + words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}

extension ProviderConfiguration.AlsoAnswered {
    /// The operation it names.
    var operationKey: OperationKey { OperationKey(path: path, method: method.lowercased()) }
}
