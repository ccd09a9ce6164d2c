import Yams

extension YAMLReader {
    /// One interaction; `defined` holds the variables saved by earlier interactions and
    /// gains this one's.
    mutating func interaction(_ node: Node, defined: inout Set<String>) -> Interaction? {
        guard let pairs = mapping(node, "an interaction", allowed: ["name", "given", "request", "response", "save"], required: ["name", "request", "response"]) else {
            return nil
        }
        var values: [String: Node] = [:]
        for (key, value) in pairs { values[key] = value }
        let before = diagnostics.count

        let name = values["name"].flatMap { string($0, "name") }
        let given = values["given"].map { providerStates($0) } ?? []
        let request = values["request"].flatMap { self.request($0, defined: defined) }
        let response = values["response"].flatMap { self.response($0) }
        var save: [String: JSONPath] = [:]
        if let saveNode = values["save"] {
            for (variable, pathNode) in mapping(saveNode, "save") ?? [] {
                guard let text = string(pathNode, "save '\(variable)'") else { continue }
                do {
                    save[variable] = try JSONPath(text)
                } catch {
                    self.error(pathNode, "invalid path for '\(variable)': \(error)")
                }
            }
            if case .text? = response?.body {
                error(saveNode, "save needs a JSON response body")
            }
        }
        defined.formUnion(save.keys)
        guard diagnostics.count == before, let name, let request, let response else { return nil }
        return Interaction(
            name: name, location: SourceLocation(file: file, line: node.mark?.line ?? 0),
            given: given, request: request, response: response, save: save
        )
    }

    private mutating func providerStates(_ node: Node) -> [ProviderStateUse] {
        guard case .sequence(let sequence) = node else {
            error(node, "given must be a list of states")
            return []
        }
        var uses: [ProviderStateUse] = []
        for element in sequence {
            if case .scalar = element {
                if let state = string(element, "a state") { uses.append(ProviderStateUse(state: state, params: [:])) }
                continue
            }
            guard let pairs = mapping(element, "a state", allowed: ["state", "params"], required: ["state"]) else { continue }
            var state: String?
            var params: [String: JSONValue] = [:]
            for (key, value) in pairs {
                if key == "state" {
                    state = string(value, "state")
                } else if case .object(let members)? = json(value, "params") {
                    params = members
                } else {
                    error(value, "params must be a mapping")
                }
            }
            if let state { uses.append(ProviderStateUse(state: state, params: params)) }
        }
        return uses
    }

    private mutating func request(_ node: Node, defined: Set<String>) -> RequestSpec? {
        guard let pairs = mapping(node, "request", allowed: ["method", "path", "query", "headers", "json", "body"], required: ["method", "path"]) else {
            return nil
        }
        var method: String?
        var path: Template?
        var query: [(name: String, value: Template)] = []
        var headers: [(name: String, value: Template)] = []
        var body = RequestBody.none
        var bodyNode: Node?
        for (key, value) in pairs {
            switch key {
            case "method":
                if let text = string(value, "method") {
                    let upper = text.uppercased()
                    if upper.allSatisfy({ $0.isLetter }) && !upper.isEmpty { method = upper } else { error(value, "'\(text)' is not an HTTP method") }
                }
            case "path":
                if let text = string(value, "path") {
                    if text.hasPrefix("/") { path = Template(text) } else { error(value, "path must start with '/'") }
                    checkVariables(Template(text).requiredVariables, at: value, defined: defined)
                }
            case "query", "headers":
                for (name, valueNode) in mapping(value, key) ?? [] {
                    guard let text = scalarText(valueNode, "\(key) '\(name)'") else { continue }
                    checkVariables(Template(text).requiredVariables, at: valueNode, defined: defined)
                    if key == "query" { query.append((name, Template(text))) } else { headers.append((name, Template(text))) }
                }
            case "json":
                if bodyNode != nil { error(value, "a request has either json or body, not both") }
                bodyNode = value
                if let json = json(value, "json") {
                    body = .json(json)
                    checkVariables(json.templateVariables, at: value, defined: defined)
                }
            default:
                if bodyNode != nil { error(value, "a request has either json or body, not both") }
                bodyNode = value
                if let text = scalarText(value, "body") {
                    body = .text(Template(text))
                    checkVariables(Template(text).requiredVariables, at: value, defined: defined)
                }
            }
        }
        guard let method, let path else { return nil }
        return RequestSpec(method: method, path: path, query: query, headers: headers, body: body)
    }

    private mutating func checkVariables(_ names: [String], at node: Node, defined: Set<String>) {
        for name in names where !defined.contains(name) {
            let known = defined.isEmpty ? "no variable is saved before this interaction" : "saved so far: \(defined.sorted().joined(separator: ", "))"
            error(node, "undefined variable '\(name)' (\(known))")
        }
    }

    private mutating func response(_ node: Node) -> ResponseSpec? {
        guard let pairs = mapping(node, "response", allowed: ["status", "headers", "json", "body", "strict"], required: ["status"]) else {
            return nil
        }
        var status: Int?
        var headers: [String: Matcher] = [:]
        var body = ResponseBodySpec.unspecified
        var hasBody = false
        var strict = false
        for (key, value) in pairs {
            switch key {
            case "status":
                if let code = integer(value, "status") {
                    if (100...599).contains(code) { status = code } else { error(value, "status must be from 100 to 599") }
                }
            case "headers":
                for (name, valueNode) in mapping(value, "headers") ?? [] {
                    if case .scalar = valueNode {
                        if let text = scalarText(valueNode, "header '\(name)'") { headers[name.lowercased()] = Matcher(.literal(.string(text))) }
                    } else if let matcher = matcher(valueNode, "header '\(name)'") {
                        headers[name.lowercased()] = matcher
                    }
                }
            case "json":
                if hasBody { error(value, "a response has either json or body, not both") }
                hasBody = true
                if let matcher = matcher(value, "json") { body = .json(matcher) }
            case "body":
                if hasBody { error(value, "a response has either json or body, not both") }
                hasBody = true
                if let matcher = matcher(value, "body") { body = .text(matcher) }
            default:
                strict = bool(value, "strict") ?? false
            }
        }
        guard let status else { return nil }
        return ResponseSpec(status: status, headers: headers, body: body, strict: strict)
    }
}
