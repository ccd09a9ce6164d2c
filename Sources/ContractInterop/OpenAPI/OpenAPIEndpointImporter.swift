#if canImport(OpenAPIKit)
    import ContractKit
    import Foundation
    import OpenAPIKit
    import WebForms

    /// The interactions of one operation (``OpenAPIImporter``): one per declared status, each
    /// with the request the operation takes (path parameters as `{name}` segments with their
    /// matchers, required query and header parameters, the JSON body) and the response that
    /// status declares (its required headers and JSON body as matchers).
    struct OpenAPIEndpointImporter {
        let file: String
        /// The path of the document's first server (`/v1` of `https://api.example.com/v1`), put
        /// before every operation's path; empty when it has none.
        let basePath: String
        private(set) var notes: [OpenAPIImportNote] = []

        init(file: String, basePath: String = "") {
            self.file = file
            self.basePath = basePath
        }

        /// `GET /pets/{petId}`.
        static func label(_ endpoint: ResolvedEndpoint) -> String {
            "\(endpoint.method.rawValue.uppercased()) \(endpoint.path.rawValue)"
        }

        mutating func interactions(_ endpoint: ResolvedEndpoint) -> [Interaction] {
            let label = Self.label(endpoint)
            guard let request = request(endpoint, label: label) else { return [] }
            let base = endpoint.operationId ?? endpoint.endpointSummary ?? label
            let operationGiven = given(endpoint.endpointVendorExtensions[Self.givenKey], at: label)
            var made: [Interaction] = []
            for (code, response) in endpoint.responses {
                guard case .status(let status) = code.value else {
                    note(label, "the \(code.rawValue) response is not carried: an interaction needs one status")
                    continue
                }
                let at = "\(label) \(status)"
                let given = response.underlyingResponse.vendorExtensions[Self.givenKey].map { self.given($0, at: at) } ?? operationGiven
                made.append(
                    Interaction(
                        name: "\(base) \(status)", location: SourceLocation(file: file, line: 0), given: given, request: request,
                        response: self.response(response, status: status, at: at), save: [:]
                    )
                )
            }
            if made.isEmpty { note(label, "no response with a status: no interaction") }
            return made
        }

        // MARK: - Request

        private mutating func request(_ endpoint: ResolvedEndpoint, label: String) -> RequestSpec? {
            var params: [String: Matcher] = [:]
            var query: [(name: String, value: Matcher)] = []
            var headers: [(name: String, value: Matcher)] = []
            for parameter in endpoint.parameters {
                let name = parameter.underlyingParameter.name
                let location = parameter.underlyingParameter.location
                let at = "\(label) \(location.rawValue) parameter \(name)"
                if location == .cookie {
                    note(at, "cookie parameters are not carried")
                    continue
                }
                if location != .path && !parameter.underlyingParameter.required {
                    note(at, "optional parameter left out")
                    continue
                }
                let (schema, example) = Self.schemaAndExample(parameter.schemaOrContent)
                var builder = SchemaMatcherBuilder(role: .request)
                var matcher = schema.map { builder.matcher($0, example: example, at: "") } ?? Matcher(.string(minLength: 1, maxLength: nil))
                take(builder, at: at)
                if !matcher.appliesToText {
                    note(at, "a value that is not text (\(matcher.summary)) is sent as its example")
                    matcher = Matcher.literal(.string(example.map { $0.stringValue ?? $0.description } ?? "value"))
                }
                switch location {
                case .path: params[name] = matcher
                case .query: query.append((name, matcher))
                default: headers.append((name, matcher))
                }
            }
            for requirement in endpoint.security.prefix(1) {
                for (name, scheme) in requirement.schemes.sorted(by: { $0.key < $1.key }) {
                    security(scheme.securityScheme, name: name, at: label, headers: &headers, query: &query)
                }
            }
            if endpoint.security.count > 1 {
                note(label, "\(endpoint.security.count) alternative security requirements: the first is used")
            }
            var body = RequestBody.none
            if let requestBody = endpoint.requestBody {
                if let (mediaType, content) = Self.jsonContent(requestBody.content) {
                    var builder = SchemaMatcherBuilder(role: .request)
                    let example = Self.example(of: content)
                    if let schema = content.schema {
                        body = .json(builder.matcher(schema, example: example, at: "$"))
                    } else if let example {
                        body = .json(Matcher.literal(example))
                    } else {
                        note("\(label) request body", "\(mediaType) without a schema or example: no body sent")
                    }
                    take(builder, at: "\(label) request body")
                    if mediaType != "application/json" { headers.append(("Content-Type", Matcher.literal(.string(mediaType)))) }
                } else if let content = Self.formContent(requestBody.content) {
                    if let form = form(content, at: "\(label) request body") { body = .form(form) }
                } else {
                    let types = requestBody.content.keys.map(\.rawValue).joined(separator: ", ")
                    note(
                        "\(label) request body",
                        "a body of \(types) is not carried (JSON and form bodies only)\(requestBody.underlyingRequest.required ? ": the request is sent without it" : "")"
                    )
                }
            }
            let text = basePath + (endpoint.path.rawValue.hasPrefix("/") ? endpoint.path.rawValue : "/" + endpoint.path.rawValue)
            do {
                // A path parameter the document does not declare still gets a matcher.
                for segment in text.split(separator: "/") where segment.hasPrefix("{") && segment.hasSuffix("}") {
                    let name = String(segment.dropFirst().dropLast())
                    if params[name] == nil {
                        note("\(label) path parameter \(name)", "not declared: matched as a non-empty string")
                        params[name] = Matcher(.string(minLength: 1, maxLength: nil), example: .string(name))
                    }
                }
                let path = try RequestPath(text, params: params)
                return RequestSpec(method: endpoint.method.rawValue.uppercased(), path: path, query: query, headers: headers, body: body)
            } catch {
                note(label, "the path cannot be a contract's path (\(error)): the operation is not carried")
                return nil
            }
        }

        private mutating func security(
            _ scheme: OpenAPI.SecurityScheme, name: String, at label: String, headers: inout [(name: String, value: Matcher)],
            query: inout [(name: String, value: Matcher)]
        ) {
            // bearerAuth → BEARER_AUTH.
            let words = name.reduce(into: "") { text, character in
                if character.isUppercase, let last = text.last, last.isLowercase || last.isNumber { text.append("_") }
                text.append(character)
            }
            let variable = "env." + Contract.identifier(words).uppercased()
            switch scheme.type {
            case .http(let kind, _) where kind.lowercased() == "bearer":
                headers.append(("Authorization", Matcher.literal(.string("Bearer {{\(variable)}}"))))
                note(
                    label,
                    "security scheme \(name): the bearer token comes from the environment variable \(variable.dropFirst(4)) (or a value an earlier interaction saves: edit it in)"
                )
            case .http(let kind, _) where kind.lowercased() == "basic":
                let username = Matcher.literal(.string("{{\(variable)_USERNAME}}"))
                let password = Matcher.literal(.string("{{\(variable)_PASSWORD}}"))
                headers.append(("Authorization", Matcher(.basicAuth(username: username, password: password))))
                note(
                    label,
                    "security scheme \(name): the username and password come from the environment variables \(variable.dropFirst(4))_USERNAME and \(variable.dropFirst(4))_PASSWORD"
                )
            case .apiKey(let keyName, let location) where location == .header:
                headers.append((keyName, Matcher.literal(.string("{{\(variable)}}"))))
                note(label, "security scheme \(name): the key comes from the environment variable \(variable.dropFirst(4))")
            case .apiKey(let keyName, let location) where location == .query:
                query.append((keyName, Matcher.literal(.string("{{\(variable)}}"))))
                note(label, "security scheme \(name): the key comes from the environment variable \(variable.dropFirst(4))")
            default:
                note(label, "security scheme \(name) (\(scheme.type.name.rawValue)) is not carried: add its credentials to the requests")
            }
        }

        // MARK: - Response

        private mutating func response(_ response: DereferencedResponse, status: Int, at: String) -> ResponseSpec {
            var headers: [String: Matcher] = [:]
            for (name, header) in response.headers ?? [:] {
                guard header.underlyingHeader.required else {
                    note("\(at) header \(name)", "optional header left out")
                    continue
                }
                let (schema, example) = Self.schemaAndExample(header.schemaOrContent)
                var builder = SchemaMatcherBuilder(role: .response)
                let matcher =
                    schema.map { builder.matcher($0, example: example, at: "") } ?? Matcher(.string(minLength: nil, maxLength: nil))
                take(builder, at: "\(at) header \(name)")
                headers[name] = matcher.appliesToText ? matcher : Matcher(.string(minLength: nil, maxLength: nil))
            }
            if let (_, content) = Self.jsonContent(response.content) {
                var builder = SchemaMatcherBuilder(role: .response)
                let example = Self.example(of: content)
                let body: Matcher
                if let schema = content.schema {
                    body = builder.matcher(schema, example: example, at: "$")
                } else {
                    body = example.map(Matcher.literal) ?? Matcher(.any)
                }
                take(builder, at: at)
                return ResponseSpec(status: status, headers: headers, body: .json(body), strict: builder.strict)
            }
            if let (mediaType, _) = response.content.first(where: { $0.key.rawValue.lowercased().hasPrefix("text/") }).map({
                ($0.key.rawValue, $0.value)
            }) {
                headers["Content-Type"] =
                    headers["Content-Type"]
                    ?? Matcher(.regex(NSRegularExpression.escapedPattern(for: mediaType) + "(;.*)?"), example: .string(mediaType))
                return ResponseSpec(status: status, headers: headers, body: .text(Matcher(.string(minLength: nil, maxLength: nil))))
            }
            if let other = response.content.keys.first {
                note(at, "a body of \(other.rawValue) is not carried (JSON and text bodies only)")
            }
            return ResponseSpec(status: status, headers: headers)
        }

        // MARK: - Helpers

        /// The document's `x-contract-given` extension: the provider states an operation (or one
        /// response) needs, as a contract's `given` (names, or `{state, params}`).
        static let givenKey = "x-contract-given"

        private mutating func given(_ value: AnyCodable?, at: String) -> [ProviderStateUse] {
            guard let value, let json = SchemaMatcherBuilder.json(value) else { return [] }
            let items: [JSONValue] = if case .array(let list) = json { list } else { [json] }
            var uses: [ProviderStateUse] = []
            for item in items {
                switch item {
                case .string(let state): uses.append(ProviderStateUse(state: state, params: [:]))
                case .object(let members):
                    guard case .string(let state)? = members["state"] else { fallthrough }
                    let params: [String: JSONValue] = if case .object(let params)? = members["params"] { params } else { [:] }
                    uses.append(ProviderStateUse(state: state, params: params))
                default:
                    note(at, "\(Self.givenKey) entries are state names or {state, params}: \(item) is left out")
                }
            }
            return uses
        }

        /// The JSON media type of a content map (`application/json`, `…+json`), if any.
        static func jsonContent(_ content: DereferencedContent.Map) -> (String, DereferencedContent)? {
            content.first { key, _ in
                let type = key.rawValue.lowercased().split(separator: ";").first.map(String.init) ?? ""
                return type == "application/json" || type.hasSuffix("+json") || type == "*/*"
            }.map { ($0.key.rawValue == "*/*" ? "application/json" : $0.key.rawValue, $0.value) }
        }

        /// The `application/x-www-form-urlencoded` content of a content map, if any.
        static func formContent(_ content: DereferencedContent.Map) -> DereferencedContent? {
            content.first { key, _ in FormEncoding.isForm(contentType: key.rawValue) }?.value
        }

        /// A form body from a form content's object schema: a field per property (by name), the
        /// properties not required optional; a property that is not text is left out with a note.
        private mutating func form(_ content: DereferencedContent, at place: String) -> FormBody? {
            guard let schema = content.schema else {
                note(place, "\(FormBody.contentType) without a schema: no body sent")
                return nil
            }
            var builder = SchemaMatcherBuilder(role: .request)
            let matcher = builder.matcher(schema, example: Self.example(of: content), at: "$")
            take(builder, at: place)
            guard case .object(let members) = matcher.kind else {
                note(place, "a form whose schema is not an object is not carried")
                return nil
            }
            var fields: [FormField] = []
            for name in members.keys.sorted() {
                guard let member = members[name] else { continue }
                guard member.appliesToText else {
                    note("\(place) field \(name)", "\(member.summary) is not text: left out")
                    continue
                }
                fields.append(FormField(name: name, value: member))
            }
            return FormBody(fields)
        }

        /// The content's `example`, else its first `examples` value.
        static func example(of content: DereferencedContent) -> JSONValue? {
            SchemaMatcherBuilder.json(content.example) ?? SchemaMatcherBuilder.json(content.examples?.first?.value.dataOrLegacyValue)
        }

        /// A parameter's or header's schema and example (from the schema context, or its JSON content).
        static func schemaAndExample(_ source: Either<DereferencedSchemaContext, DereferencedContent.Map>) -> (
            DereferencedJSONSchema?, JSONValue?
        ) {
            switch source {
            case .a(let context):
                let example =
                    SchemaMatcherBuilder.json(context.example)
                    ?? SchemaMatcherBuilder.json(context.examples?.first?.value.dataOrLegacyValue)
                return (context.schema, example)
            case .b(let content):
                guard let (_, json) = jsonContent(content) else { return (nil, nil) }
                return (json.schema, example(of: json))
            }
        }

        private mutating func take(_ builder: SchemaMatcherBuilder, at: String) {
            for (path, message) in builder.notes {
                note(path.isEmpty ? at : "\(at) \(path)", message)
            }
        }

        private mutating func note(_ location: String, _ message: String) {
            notes.append(OpenAPIImportNote(file: file, location: location, message: message))
        }
    }
#endif
