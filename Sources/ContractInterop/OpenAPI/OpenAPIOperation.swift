import ContractKit

/// The interactions of one path and method, as an OpenAPI operation object.
struct OpenAPIOperation {
    /// An interaction of the operation, with its contract's name and saved variables.
    struct Use {
        let contract: String
        let interaction: Interaction
        let variables: [String: Matcher]
        /// The interaction as ``CarriedInteractions`` carries it.
        let carried: JSONValue
    }

    let key: OperationKey
    let uses: [Use]
    /// Uses of other routes whose responses this one also answers (``OpenAPIExporter/alsoAnswers``):
    /// only their responses count, and they are not carried.
    var also: [Use] = []
    var id = ""

    init(key: OperationKey, uses: [Use]) {
        self.key = key
        self.uses = uses
    }

    private var interactions: [Interaction] { (uses + also).map(\.interaction) }

    /// The uses that describe what a client may send: those answered 2xx, or all when none is.
    private var acceptedUses: [Use] {
        let succeeding = uses.filter { (200..<300).contains($0.interaction.response.status) }
        return succeeding.isEmpty ? uses : succeeding
    }

    private var accepted: [Interaction] { acceptedUses.map(\.interaction) }

    /// Whether a request sends `Authorization: Bearer …`.
    var usesBearer: Bool { accepted.contains { Self.bearer(in: $0.request) } }

    /// Whether a request sends HTTP Basic credentials (a `basic_auth` header).
    var usesBasic: Bool { accepted.contains(where: Self.sendsBasic) }

    /// Whether some accepted request sends no credentials at all (authentication is optional:
    /// a token endpoint's public client, say).
    private var acceptsAnonymous: Bool {
        accepted.contains { !Self.bearer(in: $0.request) && !Self.sendsBasic($0) }
    }

    private static func sendsBasic(_ interaction: Interaction) -> Bool {
        interaction.request.headers.contains { $0.value.kind.as(BasicAuthMatcher.self) != nil }
    }

    /// The schemas of error responses (4xx, 5xx) whose bodies are objects.
    var errorBodySchemas: [[String: JSONValue]] {
        (uses + also).compactMap { use in
            let response = use.interaction.response
            guard response.status >= 400, case .json(let matcher) = response.body, case .object = matcher.kind else { return nil }
            return matcher.jsonSchema(role: .response, strict: response.strict, variables: use.variables)
        }
    }

    func json(sharedError: Bool) -> [String: JSONValue] {
        var operation: [String: JSONValue] = ["operationId": .string(id)]
        operation["summary"] = .string(accepted.first?.name ?? key.operationID)
        var tags: [String] = []
        for use in uses where !tags.contains(use.contract) { tags.append(use.contract) }
        operation["tags"] = .array(tags.map(JSONValue.string))
        let parameters = self.parameters
        if !parameters.isEmpty { operation["parameters"] = .array(parameters) }
        if let body = requestBody { operation["requestBody"] = .object(body) }
        var security: [JSONValue] = []
        if usesBearer { security.append(["bearerAuth": []]) }
        if usesBasic { security.append(["basicAuth": []]) }
        // `{}`: no scheme at all is an accepted alternative (OpenAPI 3.1 §4.8.10).
        if !security.isEmpty, acceptsAnonymous { security.append([:]) }
        if !security.isEmpty { operation["security"] = .array(security) }
        var responses: [String: JSONValue] = [:]
        for status in Set(interactions.map(\.response.status)).sorted() {
            responses[String(status)] = .object(response(status: status, sharedError: sharedError))
        }
        operation["responses"] = .object(responses)
        operation[CarriedInteractions.key] = .array(uses.map(\.carried))
        return operation
    }

    // MARK: - Request

    private var parameters: [JSONValue] {
        var result: [JSONValue] = []
        guard let first = uses.first else { return result }
        let path = first.interaction.request.path
        for segment in path.segments {
            switch segment {
            case .parameter(let name):
                let schema = path.params[name]?.jsonSchema(role: .request, variables: first.variables) ?? [:]
                result.append(["name": .string(name), "in": "path", "required": true, "schema": .object(schema)])
            case .text(let template):
                guard template.soleVariable != nil else { continue }
                let schema = Matcher(.literal(.string(template.text))).jsonSchema(role: .request, variables: first.variables)
                result.append(["name": .string(template.soleVariable ?? ""), "in": "path", "required": true, "schema": .object(schema)])
            }
        }
        result += namedParameters(location: "query") { $0.query }
        result += namedParameters(location: "header") { request in
            request.headers.filter { header in
                let name = header.name.lowercased()
                // User-Agent describes the client, not the operation.
                return !["content-type", "content-length", "accept", "authorization", "user-agent"].contains(name)
            }
        }
        return result
    }

    /// Query or header parameters: each one any interaction sends, required when every
    /// accepted interaction sends it, described by the accepted interactions that do.
    private func namedParameters(location: String, _ values: (RequestSpec) -> [(name: String, value: Matcher)]) -> [JSONValue] {
        var names: [String] = []
        for interaction in interactions {
            for (name, _) in values(interaction.request) where !names.contains(where: { $0.lowercased() == name.lowercased() }) {
                names.append(name)
            }
        }
        return names.map { name in
            let lowered = name.lowercased()
            func schemas(_ from: [Use]) -> [[String: JSONValue]] {
                from.compactMap { use in
                    values(use.interaction.request).first { $0.name.lowercased() == lowered }?.value.jsonSchema(
                        role: .request, variables: use.variables)
                }
            }
            let described = schemas(acceptedUses).isEmpty ? schemas(uses) : schemas(acceptedUses)
            let schema = JSONSchemaUnion.of(described) ?? [:]
            let required = accepted.allSatisfy { interaction in values(interaction.request).contains { $0.name.lowercased() == lowered } }
            return ["name": .string(name), "in": .string(location), "required": .bool(required), "schema": .object(schema)]
        }
    }

    private var requestBody: [String: JSONValue]? {
        var schema: [String: JSONValue]?
        var examples: [String: JSONValue] = [:]
        var hasJSON = false
        var formSchema: [String: JSONValue]?
        var multipartSchema: [String: JSONValue]?
        for use in acceptedUses {
            let interaction = use.interaction
            switch interaction.request.body {
            case .form(let form):
                let next = form.objectMatcher.jsonSchema(role: .request, variables: use.variables)
                formSchema = formSchema.map { JSONSchemaUnion.of($0, next) } ?? next
                continue
            case .multipart(let parts):
                let next = Self.multipartSchema(parts, variables: use.variables)
                multipartSchema = multipartSchema.map { JSONSchemaUnion.of($0, next) } ?? next
                continue
            case .json: break
            case .none, .text: continue
            }
            guard case .json(let matcher) = interaction.request.body else { continue }
            hasJSON = true
            let next = matcher.jsonSchema(role: .request, variables: use.variables)
            schema = schema.map { JSONSchemaUnion.of($0, next) } ?? next
            if let value = matcher.writtenExample {
                examples[Self.exampleKey(interaction.name, in: examples)] = ["summary": .string(interaction.name), "value": value]
            }
        }
        let sendsBody = accepted.map { interaction -> Bool in
            if case .none = interaction.request.body { false } else { true }
        }
        var content: [String: JSONValue] = [:]
        if let formSchema { content[FormBody.contentType] = ["schema": .object(formSchema)] }
        if let multipartSchema { content["multipart/form-data"] = ["schema": .object(multipartSchema)] }
        if hasJSON {
            var media: [String: JSONValue] = ["schema": .object(schema ?? [:])]
            if !examples.isEmpty { media["examples"] = .object(examples) }
            content["application/json"] = .object(media)
        }
        if content.isEmpty {
            guard accepted.contains(where: { if case .text = $0.request.body { true } else { false } }) else { return nil }
            content["text/plain"] = ["schema": ["type": "string"]]
        }
        return ["required": .bool(!sendsBody.contains(false)), "content": .object(content)]
    }

    /// A `multipart/form-data` schema: an object of the parts, each required; a file part a
    /// binary string, a text part its matcher's schema, a JSON part its JSON's.
    static func multipartSchema(_ parts: [MultipartPart], variables: [String: Matcher]) -> [String: JSONValue] {
        var properties: [String: JSONValue] = [:]
        for part in parts {
            switch part.body {
            case .text where part.filename != nil: properties[part.name] = ["type": "string", "format": "binary"]
            case .text(let matcher), .json(let matcher):
                properties[part.name] = .object(matcher.jsonSchema(role: .request, variables: variables))
            }
        }
        return ["type": "object", "properties": .object(properties), "required": .array(parts.map { .string($0.name) })]
    }

    static func bearer(in request: RequestSpec) -> Bool {
        guard let header = firstHeader("Authorization", in: request.headers) else { return false }
        if case .literal(.string(let text)) = header.kind { return text.hasPrefix("Bearer ") }
        return false
    }

    // MARK: - Response

    private func response(status: Int, sharedError: Bool) -> [String: JSONValue] {
        let answeredUses = (uses + also).filter { $0.interaction.response.status == status }
        let answered = answeredUses.map(\.interaction)
        // A response of another route (``also``) says whose it is.
        let own = uses.filter { $0.interaction.response.status == status }.map { "- \($0.interaction.name)" }
        let borrowed = also.filter { $0.interaction.response.status == status }.map { use in
            "- as \(use.interaction.request.method.uppercased()) \(OpenAPIExporter.openAPIPath(use.interaction.request.path)) answers: \(use.interaction.name)"
        }
        var response: [String: JSONValue] = [
            "description": .string((own + borrowed).joined(separator: "\n"))
        ]
        var headerNames: [String] = []
        for interaction in answered {
            for name in interaction.response.headers.keys.sorted() where name != "content-type" && !headerNames.contains(name) {
                headerNames.append(name)
            }
        }
        if !headerNames.isEmpty {
            var headers: [String: JSONValue] = [:]
            for name in headerNames {
                let matchers = answeredUses.compactMap { use in use.interaction.response.headers[name].map { ($0, use.variables) } }
                let schema = JSONSchemaUnion.of(matchers.map { $0.jsonSchema(role: .response, variables: $1) }) ?? [:]
                headers[Self.headerName(name)] = ["required": .bool(matchers.count == answered.count), "schema": .object(schema)]
            }
            response["headers"] = .object(headers)
        }
        addBrowserHeaders(of: answered, to: &response)
        var content: [String: JSONValue] = [:]
        var json: [String: JSONValue]?
        var jsonExamples: [String: JSONValue] = [:]
        for use in answeredUses {
            let interaction = use.interaction
            switch interaction.response.body {
            case .unspecified:
                continue
            case .json(let matcher):
                let next = matcher.jsonSchema(role: .response, strict: interaction.response.strict, variables: use.variables)
                json = json.map { JSONSchemaUnion.of($0, next) } ?? next
                if let value = matcher.writtenExample {
                    jsonExamples[Self.exampleKey(interaction.name, in: jsonExamples)] = [
                        "summary": .string(interaction.name), "value": value,
                    ]
                }
            case .form(let form):
                content[FormBody.contentType] = [
                    "schema": .object(
                        form.objectMatcher.jsonSchema(role: .response, strict: interaction.response.strict, variables: use.variables))
                ]
            case .text(let matcher):
                let mediaType = Self.mediaType(interaction.response.headers["content-type"]) ?? "text/plain"
                var media: [String: JSONValue] = ["schema": .object(matcher.jsonSchema(role: .response, variables: use.variables))]
                if let value = matcher.writtenExample { media["example"] = value }
                content[mediaType] = .object(media)
            }
        }
        if var json {
            if sharedError, status >= 400, json["type"] == "object" { json = OpenAPIExporter.errorReference }
            var media: [String: JSONValue] = ["schema": .object(json)]
            if !jsonExamples.isEmpty { media["examples"] = .object(jsonExamples) }
            content["application/json"] = .object(media)
        }
        if !content.isEmpty { response["content"] = .object(content) }
        return response
    }

    /// The `Location` of the answers whose contracts read it as a URL (`location:`), with the
    /// parameters its query carries, and the `Set-Cookie` of those that set cookies
    /// (`cookies:`), with the cookies' names and attributes: OpenAPI describes one header of a
    /// name, so what the contracts check is said in its description.
    private func addBrowserHeaders(of answered: [Interaction], to response: inout [String: JSONValue]) {
        var headers: [String: JSONValue] = if case .object(let existing)? = response["headers"] { existing } else { [:] }
        let redirects = answered.compactMap(\.response.location)
        if !redirects.isEmpty, headers["Location"] == nil {
            var parameters: [String] = []
            for name in redirects.flatMap({ $0.query.map(\.name) }) where !parameters.contains(name) { parameters.append(name) }
            let carries = parameters.isEmpty ? "" : "; its query carries " + parameters.joined(separator: ", ")
            headers["Location"] = [
                "required": .bool(redirects.count == answered.count),
                "description": .string("Where the browser goes next\(carries)."),
                "schema": ["type": "string", "format": "uri-reference"],
            ]
        }
        var cookies: [String] = []
        for interaction in answered {
            for name in interaction.response.cookies.keys.sorted() {
                guard let cookie = interaction.response.cookies[name] else { continue }
                let attributes = [
                    cookie.httpOnly == true ? "HttpOnly" : nil, cookie.secure == true ? "Secure" : nil,
                    cookie.sameSite.flatMap { $0.isEmpty ? nil : "SameSite=\($0)" },
                ].compactMap { $0 }
                let text = name + (attributes.isEmpty ? "" : " (\(attributes.joined(separator: ", ")))")
                if !cookies.contains(text) { cookies.append(text) }
            }
        }
        if !cookies.isEmpty, headers["Set-Cookie"] == nil {
            headers["Set-Cookie"] = [
                "required": .bool(answered.allSatisfy { !$0.response.cookies.isEmpty }),
                "description": .string("Sets \(cookies.joined(separator: "; "))."), "schema": ["type": "string"],
            ]
        }
        if !headers.isEmpty { response["headers"] = .object(headers) }
    }

    /// The media type a `Content-Type` matcher names (its literal, or its example), without parameters.
    private static func mediaType(_ matcher: Matcher?) -> String? {
        guard let matcher else { return nil }
        let value: JSONValue? = if case .literal(let literal) = matcher.kind { literal } else { matcher.example }
        guard case .string(let text)? = value else { return nil }
        return text.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// `cache-control` → `Cache-Control`, `www-authenticate` → `WWW-Authenticate`.
    static func headerName(_ lowered: String) -> String {
        let special = ["www-authenticate": "WWW-Authenticate", "etag": "ETag", "x-request-id": "X-Request-ID"]
        if let name = special[lowered] { return name }
        return lowered.split(separator: "-", omittingEmptySubsequences: false).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(
            separator: "-")
    }

    /// A key for an example map made from an interaction's name.
    static func exampleKey(_ name: String, in existing: [String: JSONValue]) -> String {
        let words = name.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber })
        let base = words.isEmpty ? "example" : words.joined(separator: "_")
        var key = base
        var number = 2
        while existing[key] != nil {
            key = "\(base)_\(number)"
            number += 1
        }
        return key
    }
}
