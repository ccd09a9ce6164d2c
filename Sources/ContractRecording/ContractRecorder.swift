import ContractKit
import Foundation
import WebForms
import Yams

/// One request that passed through `contract record`, with the provider's answer.
public struct RecordedExchange: Sendable {
    /// What the client sent.
    public let request: ContractRequest
    /// What the provider answered.
    public let response: ContractResponse

    /// Creates an exchange.
    public init(request: ContractRequest, response: ContractResponse) {
        self.request = request
        self.response = response
    }
}

/// Turns recorded traffic into contract files that verify against the same provider.
///
/// - Values that differ from run to run become matchers: UUIDs, JWTs, RFC 3339 times and
///   long random strings in responses (`{ match: uuid }`; no example, so no recorded token
///   is written down), numbers as `integer`/`number` with the recorded example; in
///   requests, with the recorded value as `example`, and UUID or random path segments as
///   `{id}` path parameters.
/// - A value of one exchange (a response's token or id, a UUID the client made up) that a
///   later request sends again becomes a `save` and a `{{name}}`. Exchanges are grouped
///   into files by their first path segment, and files linked that way are one file (a
///   saved value is known only in its own file), named after its first exchange.
/// - Request secrets that are not such values — JSON fields named like a password, secret
///   or token, and credential headers such as `Authorization` — become `{{env.NAME}}`,
///   unless `keepSecrets`; ``Output/secrets`` lists the names to set.
///
/// ```swift
/// let output = ContractRecorder.record(exchanges)
/// for file in output.files { try file.yaml.write(toFile: "contracts/\(file.name)", atomically: true, encoding: .utf8) }
/// ```
public enum ContractRecorder {
    /// What recording produced.
    public struct Output: Sendable {
        /// One contract file.
        public struct File: Sendable {
            /// The file name (`login.yaml`).
            public let name: String
            /// Its text.
            public let yaml: String
            /// How many interactions it holds.
            public let interactions: Int
        }

        /// The files, in the order their first exchange was recorded.
        public let files: [File]
        /// The environment variables the files read secrets from.
        public let secrets: [Secret]
    }

    /// An environment variable a recorded contract reads a secret from.
    public struct Secret: Sendable, Equatable {
        /// The variable's name (`LOGIN_PASSWORD`).
        public let variable: String
        /// Where it is used first (`POST /login json password`).
        public let usedFor: String
    }

    /// The contract files for `exchanges`, in the order they happened.
    public static func record(_ exchanges: [RecordedExchange], keepSecrets: Bool = false) -> Output {
        var recording = Recording(exchanges: exchanges.map(ParsedExchange.init), keepSecrets: keepSecrets)
        return recording.output()
    }
}

/// A recorded exchange taken apart.
struct ParsedExchange {
    let method: String
    let segments: [String]
    let query: [(name: String, value: String)]
    let headers: [(name: String, value: String)]
    let json: JSONValue?
    /// The fields of a form body (the first of each name), in order.
    let form: [(name: String, value: String)]?
    let text: String?
    let response: ContractResponse
    let responseJSON: JSONValue?
    /// The fields of a form response, in order.
    let responseForm: [(name: String, value: String)]?

    init(_ exchange: RecordedExchange) {
        method = exchange.request.method.uppercased()
        let (path, query) = exchange.request.pathAndQuery
        segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        var seen = Set<String>()
        self.query = query.filter { seen.insert($0.name).inserted }
        var seenHeaders = Set<String>()
        headers = exchange.request.headers.filter { seenHeaders.insert($0.name.lowercased()).inserted }
        let body = exchange.request.body ?? Data()
        json = body.isEmpty ? nil : try? JSONValue(parsing: body)
        form = json == nil && !body.isEmpty ? Self.form(body, contentType: exchange.request.header("Content-Type")) : nil
        text = body.isEmpty || json != nil || form != nil ? nil : String(decoding: body, as: UTF8.self)
        response = exchange.response
        responseJSON = exchange.response.json
        responseForm = responseJSON == nil ? Self.form(exchange.response.body, contentType: exchange.response.header("Content-Type")) : nil
    }

    /// The fields of a form body with a form `Content-Type`, the first of each name.
    private static func form(_ body: Data, contentType: String?) -> [(name: String, value: String)]? {
        guard FormEncoding.isForm(contentType: contentType), let fields = FormEncoding.decode(body) else { return nil }
        var seen = Set<String>()
        return fields.filter { seen.insert($0.name).inserted }
    }

    var firstSegment: String { segments.first ?? "" }
}

/// Where in a request a value sits.
enum Place: Hashable {
    case segment(Int)
    case query(String)
    case header(String)
    case json([JSONPath.Component])
    case form(String)
    case text
}

/// A value of one exchange that a later request may send again.
struct Candidate {
    let exchange: Int
    let value: String
    let source: SaveSource
    let hint: String
}

struct Recording {
    let exchanges: [ParsedExchange]
    let keepSecrets: Bool
    /// Path parameters inferred per exchange: segment index → name.
    var parameters: [Int: [Int: String]] = [:]
    /// For each exchange, each place that sends a saved value: which candidate.
    var uses: [Int: [Place: Int]] = [:]
    var candidates: [Candidate] = []
    var usedCandidates = Set<Int>()
    var parent: [Int]
    /// Variable names per used candidate, unique within a file.
    var names: [Int: String] = [:]
    var envNames: [String: String] = [:]
    var secrets: [ContractRecorder.Secret] = []

    init(exchanges: [ParsedExchange], keepSecrets: Bool) {
        self.exchanges = exchanges
        self.keepSecrets = keepSecrets
        parent = Array(exchanges.indices)
    }

    mutating func output() -> ContractRecorder.Output {
        var firstBySegment: [String: Int] = [:]
        for index in exchanges.indices {
            findUses(in: index)
            collectCandidates(of: index)
            // One file per first path segment, joined by the files whose values it uses.
            if let first = firstBySegment[exchanges[index].firstSegment] {
                union(first, index)
            } else {
                firstBySegment[exchanges[index].firstSegment] = index
            }
        }
        // Files: exchanges linked by a saved value, in the order of their first exchange.
        var groups: [Int: [Int]] = [:]
        var order: [Int] = []
        for index in exchanges.indices {
            let root = find(index)
            if groups[root] == nil { order.append(root) }
            groups[root, default: []].append(index)
        }
        var files: [ContractRecorder.Output.File] = []
        var fileNames = Set<String>()
        for root in order {
            let members = groups[root] ?? []
            let name = Contract.freeName(Contract.fileBase(exchanges[root].firstSegment), separator: "-") { fileNames.contains($0) }
            fileNames.insert(name)
            files.append(file(name: name, members: members))
        }
        return ContractRecorder.Output(files: files, secrets: secrets)
    }

    // MARK: Saved values

    private mutating func findUses(in index: Int) {
        let exchange = exchanges[index]
        func source(for value: String, substring: Bool) -> Int? {
            candidates.indices.reversed().first { candidate in
                let known = candidates[candidate].value
                return candidates[candidate].exchange < index
                    && (known == value || (substring && known.count >= 16 && value.contains(known)))
            }
        }
        func use(_ place: Place, _ value: String, substring: Bool) {
            guard let candidate = source(for: value, substring: substring) else { return }
            uses[index, default: [:]][place] = candidate
            usedCandidates.insert(candidate)
            union(candidates[candidate].exchange, index)
        }
        for (position, segment) in exchange.segments.enumerated() { use(.segment(position), segment, substring: false) }
        for item in exchange.query { use(.query(item.name), item.value, substring: true) }
        for header in exchange.headers where Self.recordsRequestHeader(header.name) {
            use(.header(header.name.lowercased()), header.value, substring: true)
        }
        if let json = exchange.json {
            for (path, value) in Self.stringLeaves(json, under: []) { use(.json(path), value, substring: true) }
        }
        for field in exchange.form ?? [] { use(.form(field.name), field.value, substring: true) }
        if let text = exchange.text { use(.text, text, substring: true) }
    }

    private mutating func collectCandidates(of index: Int) {
        let exchange = exchanges[index]
        let used = uses[index] ?? [:]
        // What the client made up and sends again later: UUID or random path segments, and
        // such JSON values (not secrets).
        var names: [Int: String] = [:]
        for (position, segment) in exchange.segments.enumerated() where used[.segment(position)] == nil {
            let shape = ValueShape(segment)
            guard shape == .random || shape == .kind(.uuid) else { continue }
            let name = names.isEmpty ? "id" : "id_\(names.count + 1)"
            names[position] = name
            candidates.append(Candidate(exchange: index, value: segment, source: .requestPath(name), hint: name))
        }
        parameters[index] = names
        if let json = exchange.json {
            for (path, value) in Self.stringLeaves(json, under: []) where used[.json(path)] == nil && ValueShape(value).varies {
                guard case .key(let key)? = path.last, !Self.isSecretField(key) else { continue }
                candidates.append(Candidate(exchange: index, value: value, source: .requestBody(JSONPath(components: path)), hint: key))
            }
        }
        for field in exchange.form ?? []
        where used[.form(field.name)] == nil && ValueShape(field.value).varies && !Self.isSecretField(field.name) {
            candidates.append(Candidate(exchange: index, value: field.value, source: .requestForm(field.name), hint: field.name))
        }
        for field in exchange.responseForm ?? [] where ValueShape(field.value).varies {
            candidates.append(Candidate(exchange: index, value: field.value, source: .responseForm(field.name), hint: field.name))
        }
        // What the provider handed out: varying strings of the response, and a JWT's claims.
        if let json = exchange.responseJSON {
            for (path, value) in Self.stringLeaves(json, under: []) {
                let shape = ValueShape(value)
                guard shape.varies else { continue }
                let hint = path.compactMap { if case .key(let key) = $0 { key } else { nil } }.last ?? "value"
                candidates.append(Candidate(exchange: index, value: value, source: .responseBody(JSONPath(components: path)), hint: hint))
                if JWTShape.isJWT(value), case .object(let claims)? = JWTShape.payload(of: value) {
                    for claim in claims.keys.sorted() {
                        guard case .string(let claimValue)? = claims[claim], ValueShape(claimValue).varies else { continue }
                        candidates.append(
                            Candidate(
                                exchange: index, value: claimValue, source: .responseBody(JSONPath(components: path + [.key(claim)])),
                                hint: "\(hint)_\(claim)"))
                    }
                }
            }
        }
    }

    private mutating func find(_ index: Int) -> Int {
        var root = index
        while parent[root] != root { root = parent[root] }
        parent[index] = root
        return root
    }

    private mutating func union(_ a: Int, _ b: Int) {
        let (rootA, rootB) = (find(a), find(b))
        if rootA != rootB { parent[max(rootA, rootB)] = min(rootA, rootB) }
    }

    // MARK: Files

    private mutating func file(name: String, members: [Int]) -> ContractRecorder.Output.File {
        var taken = Set<String>()
        for index in members {
            for candidate in candidates.indices where candidates[candidate].exchange == index && usedCandidates.contains(candidate) {
                let variable = Contract.freeName(Contract.identifier(candidates[candidate].hint), separator: "_") { taken.contains($0) }
                taken.insert(variable)
                names[candidate] = variable
            }
        }
        var interactionNames = Set<String>()
        var interactions: [Node] = []
        for index in members {
            interactions.append(interaction(index, file: name, names: &interactionNames))
        }
        let title = exchanges[members[0]].firstSegment.isEmpty ? "root" : exchanges[members[0]].firstSegment
        let root = ContractYAML.mapping([
            ("name", ContractYAML.text("\(title) (recorded)")),
            ("interactions", .sequence(Node.Sequence(interactions, .implicit, .block))),
        ])
        let yaml = (try? Yams.serialize(node: root, width: -1, allowUnicode: true)) ?? ""
        return ContractRecorder.Output.File(name: "\(name).yaml", yaml: yaml, interactions: members.count)
    }

    private mutating func interaction(_ index: Int, file: String, names interactionNames: inout Set<String>) -> Node {
        let exchange = exchanges[index]
        let used = uses[index] ?? [:]
        let parameters = self.parameters[index] ?? [:]
        func saved(_ place: Place, _ value: String) -> String? {
            guard let candidate = used[place], let name = names[candidate] else { return nil }
            return value.replacingOccurrences(of: candidates[candidate].value, with: "{{\(name)}}")
        }

        // Path: saved values, inferred parameters, literal segments.
        var pathParams: [(String, Node)] = []
        let path =
            "/"
            + exchange.segments.enumerated().map { position, segment -> String in
                if let template = saved(.segment(position), segment) { return template }
                if let name = parameters[position] {
                    pathParams.append((name, ContractYAML.matcher(ValueShape(segment).matcher(for: segment, example: true))))
                    return "{\(name)}"
                }
                return segment
            }.joined(separator: "/")
        let where_ = "\(exchange.method) \(path)"

        var request: [(String, Node)] = [("method", ContractYAML.text(exchange.method)), ("path", ContractYAML.text(path))]
        if !pathParams.isEmpty { request.append(("path_params", ContractYAML.mapping(pathParams))) }
        if !exchange.query.isEmpty {
            request.append(
                (
                    "query",
                    ContractYAML.mapping(
                        exchange.query.map { item in
                            (
                                item.name,
                                requestText(
                                    item.value, saved: saved(.query(item.name), item.value), secret: Self.isSecretField(item.name),
                                    file: file, key: item.name, usedFor: "\(where_) query \(item.name)")
                            )
                        })
                ))
        }
        let headers = exchange.headers.filter { Self.recordsRequestHeader($0.name) }
        if !headers.isEmpty {
            request.append(
                (
                    "headers",
                    ContractYAML.mapping(
                        headers.map { header in
                            (
                                header.name,
                                requestText(
                                    header.value, saved: saved(.header(header.name.lowercased()), header.value),
                                    secret: Self.isSecretHeader(header.name), file: file, key: header.name,
                                    usedFor: "\(where_) header \(header.name)")
                            )
                        })
                ))
        }
        if let json = exchange.json {
            request.append(("json", requestJSON(json, at: [], used: used, file: file, usedFor: where_)))
        } else if let form = exchange.form {
            request.append(
                (
                    "form",
                    ContractYAML.mapping(
                        form.map { field in
                            (
                                field.name,
                                requestText(
                                    field.value, saved: saved(.form(field.name), field.value), secret: Self.isSecretField(field.name),
                                    file: file, key: field.name, usedFor: "\(where_) form \(field.name)")
                            )
                        })
                ))
        } else if let text = exchange.text {
            request.append(("body", ContractYAML.text(saved(.text, text) ?? text)))
        }

        var response: [(String, Node)] = [("status", ContractYAML.value(.integer(exchange.response.status)))]
        let responseHeaders = exchange.response.headers.filter { Self.recordsResponseHeader($0.name) }
        var seen = Set<String>()
        let uniqueHeaders = responseHeaders.filter { seen.insert($0.name.lowercased()).inserted }
        if !uniqueHeaders.isEmpty {
            response.append(
                ("headers", ContractYAML.mapping(uniqueHeaders.map { ($0.name, ContractYAML.matcher(Self.headerMatcher($0.value))) })))
        }
        if let json = exchange.responseJSON {
            response.append(("json", ContractYAML.matcher(Self.inferred(json))))
        } else if let form = exchange.responseForm {
            response.append(("form", ContractYAML.mapping(form.map { ($0.name, ContractYAML.matcher(Self.inferred(.string($0.value)))) })))
        } else if !exchange.response.body.isEmpty {
            response.append(("body", ContractYAML.text(String(decoding: exchange.response.body, as: UTF8.self))))
        }

        var save: [(String, Node)] = []
        for candidate in candidates.indices where candidates[candidate].exchange == index {
            if let name = names[candidate] { save.append((name, ContractYAML.text(candidates[candidate].source.description))) }
        }

        let name = Contract.freeName("\(where_) → \(exchange.response.status)", separator: " #") { interactionNames.contains($0) }
        interactionNames.insert(name)
        var pairs: [(String, Node)] = [
            ("name", ContractYAML.text(name)), ("request", ContractYAML.mapping(request)), ("response", ContractYAML.mapping(response)),
        ]
        if !save.isEmpty { pairs.append(("save", ContractYAML.mapping(save))) }
        return ContractYAML.mapping(pairs)
    }

    /// A header or query value: a saved value, an environment secret, an inferred matcher
    /// with the recorded example, or the literal.
    private mutating func requestText(_ value: String, saved: String?, secret: Bool, file: String, key: String, usedFor: String) -> Node {
        if let saved { return ContractYAML.text(saved) }
        if secret && !keepSecrets {
            // Basic credentials keep their username; the password comes from the environment.
            if let credentials = BasicCredentials.decode(value) {
                let password =
                    "{{env.\(environmentName(for: credentials.password, file: file, key: "\(key) password", usedFor: "\(usedFor) password"))}}"
                return ContractYAML.matcher(
                    Matcher(.basicAuth(username: .literal(.string(credentials.username)), password: .literal(.string(password)))))
            }
            // Keep an authorization scheme readable: `Bearer {{env.NAME}}`.
            let parts = value.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].allSatisfy(\.isLetter) {
                return ContractYAML.text(
                    "\(parts[0]) {{env.\(environmentName(for: String(parts[1]), file: file, key: key, usedFor: usedFor))}}")
            }
            return ContractYAML.text("{{env.\(environmentName(for: value, file: file, key: key, usedFor: usedFor))}}")
        }
        let shape = ValueShape(value)
        return ContractYAML.matcher(shape.varies ? shape.matcher(for: value, example: true) : Matcher(.literal(.string(value))))
    }

    private mutating func requestJSON(_ value: JSONValue, at path: [JSONPath.Component], used: [Place: Int], file: String, usedFor: String)
        -> Node
    {
        switch value {
        case .object(let members):
            let pairs = members.keys.sorted().compactMap { key in
                members[key].map { (key, requestJSON($0, at: path + [.key(key)], used: used, file: file, usedFor: usedFor)) }
            }
            return .mapping(Node.Mapping(pairs.map { (ContractYAML.text($0.0), $0.1) }, .implicit, pairs.isEmpty ? .flow : .block))
        case .array(let elements):
            let nodes = elements.enumerated().map { requestJSON($1, at: path + [.index($0)], used: used, file: file, usedFor: usedFor) }
            return .sequence(Node.Sequence(nodes, .implicit, nodes.isEmpty ? .flow : .block))
        case .string(let text):
            if let candidate = used[.json(path)], let name = names[candidate] {
                return ContractYAML.text(text.replacingOccurrences(of: candidates[candidate].value, with: "{{\(name)}}"))
            }
            let key: String? = if case .key(let key)? = path.last { key } else { nil }
            if let key, Self.isSecretField(key), !keepSecrets {
                return ContractYAML.text(
                    "{{env.\(environmentName(for: text, file: file, key: key, usedFor: "\(usedFor) json \(JSONPath(components: path).description.dropFirst(2))"))}}"
                )
            }
            let shape = ValueShape(text)
            return ContractYAML.matcher(shape.varies ? shape.matcher(for: text, example: true) : Matcher(.literal(value)))
        default:
            return ContractYAML.value(value)
        }
    }

    /// One environment variable per secret value: `LOGIN_PASSWORD`.
    private mutating func environmentName(for value: String, file: String, key: String, usedFor: String) -> String {
        if let known = envNames[value] { return known }
        let taken = Set(envNames.values)
        let name = Contract.freeName((Contract.identifier(file) + "_" + Contract.identifier(key)).uppercased(), separator: "_") {
            taken.contains($0)
        }
        envNames[value] = name
        secrets.append(ContractRecorder.Secret(variable: name, usedFor: usedFor))
        return name
    }

    // MARK: Inference

    /// A response value as a matcher: varying strings by shape (no example), numbers by type
    /// with the recorded example, the rest literal.
    static func inferred(_ value: JSONValue) -> Matcher {
        switch value {
        case .object(let members): return Matcher(.object(members.mapValues(inferred)))
        case .array(let elements): return Matcher(.array(elements.map(inferred)))
        case .string(let text):
            let shape = ValueShape(text)
            return shape.varies ? shape.matcher(for: text, example: false) : Matcher(.literal(value))
        case .integer: return Matcher(.integer(min: nil, max: nil), example: value)
        case .number: return Matcher(.number(min: nil, max: nil), example: value)
        case .bool, .null: return Matcher(.literal(value))
        }
    }

    static func headerMatcher(_ value: String) -> Matcher {
        if !value.isEmpty, value.allSatisfy({ $0.isASCII && $0.isNumber }) { return Matcher(.regex("[0-9]+"), example: .string(value)) }
        let shape = ValueShape(value)
        return shape.varies ? shape.matcher(for: value, example: true) : Matcher(.literal(.string(value)))
    }

    static func stringLeaves(_ value: JSONValue, under path: [JSONPath.Component]) -> [([JSONPath.Component], String)] {
        switch value {
        case .string(let text): return [(path, text)]
        case .object(let members):
            return members.keys.sorted().flatMap { key in members[key].map { stringLeaves($0, under: path + [.key(key)]) } ?? [] }
        case .array(let elements): return elements.enumerated().flatMap { stringLeaves($1, under: path + [.index($0)]) }
        default: return []
        }
    }

    static func isSecretField(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return ["password", "passwd", "passphrase", "secret", "token", "api_key", "apikey", "private_key", "credential"].contains {
            lowered.contains($0)
        }
    }

    static func isSecretHeader(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return ["authorization", "proxy-authorization", "cookie"].contains(lowered)
            || isSecretField(lowered.replacingOccurrences(of: "-", with: "_"))
    }

    /// Request headers worth a contract: the body's type, credentials, and custom headers.
    static func recordsRequestHeader(_ name: String) -> Bool {
        let lowered = name.lowercased()
        if lowered == "content-type" || isSecretHeader(lowered) { return true }
        return lowered.hasPrefix("x-")
            && !["x-request-id", "x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "x-real-ip", "x-amzn-trace-id"].contains(
                lowered)
    }

    /// Response headers worth a contract: not those of the transport or of the moment.
    static func recordsResponseHeader(_ name: String) -> Bool {
        ![
            "date", "content-length", "content-type", "connection", "transfer-encoding", "keep-alive", "server", "x-request-id",
            "request-id",
            "etag", "last-modified", "age", "expires", "set-cookie", "vary",
        ].contains(name.lowercased())
    }

}
