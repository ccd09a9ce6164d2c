import Foundation
import Yams

extension YAMLReader {
    /// One interaction; `defined` holds the variables saved by earlier interactions and
    /// gains this one's.
    mutating func interaction(_ node: Node, defined: inout Set<String>) -> Interaction? {
        guard
            let pairs = mapping(
                node, "an interaction", allowed: ["name", "given", "after", "request", "response", "save", "delivers"],
                required: ["name", "request", "response"])
        else {
            return nil
        }
        var values: [String: Node] = [:]
        for (key, value) in pairs { values[key] = value }
        let before = diagnostics.count

        let name = values["name"].flatMap { string($0, "name") }
        let given = values["given"].map { providerStates($0, defined: defined) } ?? []
        // What a state's set-up answers is known from this interaction on.
        defined.formUnion(given.flatMap(\.saves))
        let after = values["after"].flatMap { duration($0, "after") }
        let request = values["request"].flatMap { self.request($0, defined: defined) }
        let response = values["response"].flatMap { self.response($0) }
        var save: [String: SaveSource] = [:]
        if let saveNode = values["save"] {
            for (variable, sourceNode) in mapping(saveNode, "save") ?? [] {
                guard let text = string(sourceNode, "save '\(variable)'") else { continue }
                let source: SaveSource
                do {
                    source = try SaveSource(text)
                } catch {
                    self.error(sourceNode, "invalid source for '\(variable)': \(error)")
                    continue
                }
                switch source {
                case .responseBody:
                    switch response?.body {
                    case .text?, .form?: error(sourceNode, "saving \(text) needs a JSON response body")
                    default: break
                    }
                case .requestBody:
                    if let request, case .json = request.body {
                    } else if request != nil {
                        error(sourceNode, "saving \(text) needs a JSON request body")
                    }
                case .requestForm(let name):
                    if let request, !Self.formHas(request.body, name) { error(sourceNode, "the request has no form field '\(name)'") }
                case .responseForm(let name):
                    switch response?.body {
                    case .form(let form)?: if form.field(name) == nil { error(sourceNode, "the response has no form field '\(name)'") }
                    case nil: break
                    default: error(sourceNode, "saving \(text) needs a form response body")
                    }
                case .requestPath(let name):
                    if let request, request.path.params[name] == nil {
                        error(sourceNode, "the request's path has no parameter {\(name)}")
                    }
                case .requestQuery(let name):
                    if let request, !request.query.contains(where: { $0.name == name }) {
                        error(sourceNode, "the request has no query parameter '\(name)'")
                    }
                case .requestHeader(let name):
                    if let request, firstHeader(name, in: request.headers) == nil {
                        error(sourceNode, "the request has no header '\(name)'")
                    }
                case .responseHTML(let html):
                    // The stub saves from its page, the body's example.
                    if case .text(let matcher)? = response?.body, let example = try? matcher.sampleValue(),
                        html.value(in: HTMLDocument(parsing: example.text)) == nil
                    {
                        error(sourceNode, "the body's example, the stub's page, has no value at \(html)")
                    }
                case .responseCookie(let name):
                    if let response, response.cookies[name] == nil {
                        error(sourceNode, "the response declares no cookie '\(name)' (cookies:)")
                    }
                case .responseLocationQuery(let name):
                    if let response, response.location?.query.contains(where: { $0.name == name }) != true {
                        error(sourceNode, "the response's location: lists no query parameter '\(name)'")
                    }
                case .responseHeader, .responseLocation:
                    break
                }
                save[variable] = source
            }
        }
        defined.formUnion(save.keys)
        // A delivery may use what this interaction saved; what it saves is known from the next one on.
        var deliverySaves = Set<String>()
        let delivers = values["delivers"].flatMap { deliveries($0, defined: defined, saved: &deliverySaves) } ?? []
        defined.formUnion(deliverySaves)
        guard diagnostics.count == before, let name, let request, let response else { return nil }
        return Interaction(
            name: name, location: SourceLocation(file: file, line: node.mark?.line ?? 0),
            given: given, request: request, response: response, save: save, delivers: delivers, after: after
        )
    }

    /// A span of time: seconds (`901`), or a number with a unit (`901s`, `15m`, `2h`, `30d`),
    /// above zero and at most ten years.
    mutating func duration(_ node: Node, _ what: String) -> Double? {
        guard let text = scalarText(node, what)?.trimmingCharacters(in: .whitespaces) else { return nil }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        var number = Substring(text)
        var scale = 1.0
        if let last = text.last, let unit = units[last] {
            number = text.dropLast()
            scale = unit
        }
        guard let value = Double(number), value.isFinite else {
            error(node, "\(what) must be a time span such as 901s, 15m, 2h or 30d, not '\(text)'")
            return nil
        }
        let seconds = value * scale
        guard seconds > 0, seconds <= Interaction.longestStep else {
            error(node, "\(what) must be above 0 and at most ten years, not '\(text)'")
            return nil
        }
        return seconds
    }

    private mutating func providerStates(_ node: Node, defined: Set<String>) -> [ProviderStateUse] {
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
            guard let pairs = mapping(element, "a state", allowed: ["state", "params", "saves"], required: ["state"]) else { continue }
            var state: String?
            var params: [String: JSONValue] = [:]
            var saves: [String] = []
            var expected: [String: Matcher] = [:]
            for (key, value) in pairs {
                if key == "state" {
                    state = string(value, "state")
                } else if key == "saves", case .sequence(let names) = value {
                    saves = names.compactMap { string($0, "a name in saves") }
                } else if key == "saves", case .mapping = value {
                    // Each name with what its value must be, checked as a response's values are.
                    for (name, valueNode) in mapping(value, "saves") ?? [] {
                        saves.append(name)
                        guard let matcher = matcher(valueNode, "saves '\(name)'") else { continue }
                        checkVariables(matcher.templateVariables, at: valueNode, defined: defined)
                        expected[name] = matcher
                    }
                } else if key == "saves" {
                    error(
                        value,
                        "saves must be a list of the names the state's set-up answers, or a mapping of each name to its value or matcher")
                } else if case .object(let members)? = json(value, "params") {
                    params = members
                } else {
                    error(value, "params must be a mapping")
                }
            }
            if let state { uses.append(ProviderStateUse(state: state, params: params, saves: saves, expected: expected)) }
        }
        return uses
    }

    private mutating func request(_ node: Node, defined: Set<String>) -> RequestSpec? {
        let keys = ["method", "path", "path_params", "query", "headers", "json", "body", "form", "multipart", "follow_redirects"]
        guard let pairs = mapping(node, "request", allowed: keys, required: ["method", "path"]) else {
            return nil
        }
        var method: String?
        var pathText: String?
        var pathNode: Node?
        var params: [String: Matcher] = [:]
        var query: [(name: String, value: Matcher)] = []
        var headers: [(name: String, value: Matcher)] = []
        var body = RequestBody.none
        var bodyNode: Node?
        var followRedirects = false
        var ok = true
        for (key, value) in pairs {
            switch key {
            case "follow_redirects":
                followRedirects = bool(value, "follow_redirects") ?? false
            case "method":
                if let text = string(value, "method") {
                    let upper = text.uppercased()
                    if upper.allSatisfy({ $0.isLetter }) && !upper.isEmpty {
                        method = upper
                    } else {
                        error(value, "'\(text)' is not an HTTP method")
                    }
                }
            case "path":
                pathNode = value
                if let text = string(value, "path") {
                    if text.hasPrefix("/") || Template(text).soleVariable != nil {
                        pathText = text
                    } else {
                        error(value, "path must start with '/', or be one saved URL ('{{token_endpoint}}')")
                    }
                    checkVariables(Template(text).requiredVariables, at: value, defined: defined)
                }
            case "path_params", "query", "headers":
                let what = ["path_params": "path parameter", "query": "query parameter", "headers": "header"][key] ?? key
                for (name, valueNode) in mapping(value, key) ?? [] {
                    guard let matcher = requestMatcher(valueNode, "\(what) '\(name)'", text: true, defined: defined) else {
                        ok = false
                        continue
                    }
                    switch key {
                    case "path_params": params[name] = matcher
                    case "query": query.append((name, matcher))
                    default: headers.append((name, matcher))
                    }
                }
            case "json":
                if bodyNode != nil { error(value, Self.oneRequestBody) }
                bodyNode = value
                if let matcher = requestMatcher(value, "json", text: false, defined: defined) { body = .json(matcher) } else { ok = false }
            case "form":
                if bodyNode != nil { error(value, Self.oneRequestBody) }
                bodyNode = value
                if let fields = formFields(value, "form", defined: defined) { body = .form(FormBody(fields)) } else { ok = false }
            case "multipart":
                if bodyNode != nil { error(value, Self.oneRequestBody) }
                bodyNode = value
                if let parts = multipartParts(value, defined: defined) { body = .multipart(parts) } else { ok = false }
            default:
                if bodyNode != nil { error(value, Self.oneRequestBody) }
                bodyNode = value
                if let text = scalarText(value, "body") {
                    body = .text(Template(text))
                    checkVariables(Template(text).requiredVariables, at: value, defined: defined)
                }
            }
        }
        guard let method, let pathText, let pathNode, ok else { return nil }
        do {
            return RequestSpec(
                method: method, path: try RequestPath(pathText, params: params), query: query, headers: headers, body: body,
                followRedirects: followRedirects)
        } catch {
            self.error(pathNode, "\(error)")
            return nil
        }
    }

    /// A request value: a literal (text with `{{var}}` placeholders) or a matcher the
    /// verifier can send a value for. `text`: a header, query or path value, so scalars only.
    /// `member`: a form field, which may be `optional: true`.
    mutating func requestMatcher(_ node: Node, _ what: String, text: Bool, member: Bool = false, defined: Set<String>) -> Matcher? {
        let matcher: Matcher
        if text, case .scalar = node {
            guard let value = scalarText(node, what) else { return nil }
            matcher = Matcher(.literal(.string(value)))
        } else {
            guard let read = self.matcher(node, what, inRequest: true, member: member) else { return nil }
            matcher = read
        }
        if text && !matcher.appliesToText {
            error(node, "\(what) must be text or a matcher of text, not \(matcher.summary)")
            return nil
        }
        checkVariables(matcher.templateVariables, at: node, defined: defined)
        do {
            _ = try matcher.sampleValue()
        } catch let problem as MatcherSampleError {
            let place = problem.path == "$" ? what : "\(what) at \(problem.path)"
            error(node, "\(place): \(problem.reason), the value the verifier sends")
            return nil
        } catch {
            self.error(node, "\(what): \(error)")
            return nil
        }
        return matcher
    }

    mutating func checkVariables(_ names: [String], at node: Node, defined: Set<String>) {
        // `{{env.NAME}}` comes from the environment of the run, not from a save.
        for name in names where !defined.contains(name) && !name.hasPrefix("env.") {
            let known =
                defined.isEmpty
                ? "no variable is saved before this interaction" : "saved so far: \(defined.sorted().joined(separator: ", "))"
            error(node, "undefined variable '\(name)' (\(known))")
        }
    }

    private mutating func response(_ node: Node) -> ResponseSpec? {
        guard
            let pairs = mapping(
                node, "response", allowed: ["status", "headers", "json", "body", "form", "strict", "location", "cookies", "html"],
                required: ["status"])
        else {
            return nil
        }
        var location: LocationSpec?
        var cookies: [String: CookieSpec] = [:]
        var html: [HTMLAssertion] = []
        var htmlNode: Node?
        var status: Int?
        var otherStatuses: [Int] = []
        var headers: [String: Matcher] = [:]
        var body = ResponseBodySpec.unspecified
        var hasBody = false
        var strict = false
        for (key, value) in pairs {
            switch key {
            case "status":
                // One code, or the codes a standard leaves the choice of (`[303, 302]`: the first is the stub's).
                let nodes: [Node]
                if case .sequence(let list) = value { nodes = Array(list) } else { nodes = [value] }
                if nodes.isEmpty { error(value, "status must be a code from 100 to 599, or a list of them") }
                var codes: [Int] = []
                for node in nodes {
                    guard let code = integer(node, "status") else { continue }
                    if (100...599).contains(code) { codes.append(code) } else { error(node, "status must be from 100 to 599") }
                }
                if codes.count == nodes.count, let first = codes.first {
                    status = first
                    otherStatuses = Array(codes.dropFirst())
                }
            case "headers":
                for (name, valueNode) in mapping(value, "headers") ?? [] {
                    if case .scalar = valueNode {
                        if let text = scalarText(valueNode, "header '\(name)'") {
                            headers[name.lowercased()] = Matcher(.literal(.string(text)))
                        }
                    } else if let matcher = matcher(valueNode, "header '\(name)'") {
                        headers[name.lowercased()] = matcher
                    }
                }
            case "json":
                if hasBody { error(value, Self.oneResponseBody) }
                hasBody = true
                if let matcher = matcher(value, "json") { body = .json(matcher) }
            case "body":
                if hasBody { error(value, Self.oneResponseBody) }
                hasBody = true
                if let matcher = matcher(value, "body") { body = .text(matcher) }
            case "form":
                if hasBody { error(value, Self.oneResponseBody) }
                hasBody = true
                if let fields = formFields(value, "form", defined: nil) { body = .form(FormBody(fields)) }
            case "location":
                location = self.location(value)
            case "cookies":
                for (name, cookieNode) in mapping(value, "cookies") ?? [] {
                    if let cookie = cookie(cookieNode, name: name) { cookies[name] = cookie }
                }
            case "html":
                htmlNode = value
                html = htmlAssertions(value)
            default:
                strict = bool(value, "strict") ?? false
            }
        }
        guard let status else { return nil }
        // The stub answers with the body's example: it must hold what the page is said to.
        if let htmlNode, case .text(let matcher) = body, let example = try? matcher.sampleValue() {
            let page = HTMLDocument(parsing: example.text)
            for problem in html.flatMap({ $0.mismatches(in: page) }) {
                error(htmlNode, "the body's example, the stub's page, does not hold it: \(problem)")
            }
        }
        return ResponseSpec(
            status: status, headers: headers, body: body, strict: strict, location: location, cookies: cookies, html: html,
            otherStatuses: otherStatuses)
    }
}
