import Yams

extension YAMLReader {
    static let oneRequestBody = "a request has one body: json, body, form or multipart, not several"
    static let oneResponseBody = "a response has one body: json, body or form, not several"

    /// A value of text (a form field, a part's header, a `basic_auth` username or password):
    /// a scalar is literal text, a mapping a matcher of text. `member`: it may be `optional: true`.
    mutating func textMatcher(_ node: Node, _ what: String, inRequest: Bool, member: Bool = false) -> Matcher? {
        if case .scalar = node {
            return scalarText(node, what).map { Matcher(.literal(.string($0))) }
        }
        guard let matcher = matcher(node, what, inRequest: inRequest, member: member) else { return nil }
        guard matcher.appliesToText else {
            error(node, "\(what) must be text or a matcher of text, not \(matcher.summary)")
            return nil
        }
        return matcher
    }

    /// A `form:` mapping of field name → value, in order. `defined`: the variables saved so
    /// far for a request's form (whose values the verifier sends), nil for a response's.
    mutating func formFields(_ node: Node, _ what: String, defined: Set<String>?) -> [FormField]? {
        guard let pairs = mapping(node, what) else { return nil }
        var fields: [FormField] = []
        var ok = true
        for (name, valueNode) in pairs {
            let field = "\(what) field '\(name)'"
            let matcher =
                if let defined {
                    requestMatcher(valueNode, field, text: true, member: true, defined: defined)
                } else {
                    textMatcher(valueNode, field, inRequest: false, member: true)
                }
            if let matcher { fields.append(FormField(name: name, value: matcher)) } else { ok = false }
        }
        return ok ? fields : nil
    }

    /// A `multipart:` list of parts: `name` (required), `filename`, `headers`, and a text
    /// `body` or a `json` body.
    mutating func multipartParts(_ node: Node, defined: Set<String>) -> [MultipartPart]? {
        guard case .sequence(let sequence) = node, !sequence.isEmpty else {
            error(node, "multipart must be a list of parts, each with name and body or json")
            return nil
        }
        var parts: [MultipartPart] = []
        var ok = true
        for element in sequence {
            guard
                let pairs = mapping(
                    element, "a multipart part", allowed: ["name", "filename", "headers", "body", "json"], required: ["name"])
            else {
                ok = false
                continue
            }
            var values: [String: Node] = [:]
            for (key, value) in pairs { values[key] = value }
            let name = values["name"].flatMap { string($0, "name") }
            let filename = values["filename"].flatMap { string($0, "filename") }
            let what = "multipart part '\(name ?? "?")'"
            var headers: [FormField] = []
            for (header, valueNode) in values["headers"].flatMap({ mapping($0, "headers") }) ?? [] {
                if let matcher = requestMatcher(valueNode, "\(what) header '\(header)'", text: true, defined: defined) {
                    headers.append(FormField(name: header, value: matcher))
                } else {
                    ok = false
                }
            }
            var body: MultipartPart.Body?
            switch (values["body"], values["json"]) {
            case (let text?, nil):
                body = requestMatcher(text, "\(what) body", text: true, defined: defined).map(MultipartPart.Body.text)
            case (nil, let json?):
                body = requestMatcher(json, "\(what) json", text: false, defined: defined).map(MultipartPart.Body.json)
            case (.some, .some):
                error(element, "\(what) has either body or json, not both")
            case (nil, nil):
                error(element, "\(what) needs body (text) or json")
            }
            guard let name, let body, values["filename"] == nil || filename != nil else {
                ok = false
                continue
            }
            parts.append(MultipartPart(name: name, filename: filename, headers: headers, body: body))
        }
        return ok ? parts : nil
    }

    /// Whether `body` is a form with field `name`.
    static func formHas(_ body: RequestBody, _ name: String) -> Bool {
        if case .form(let form) = body { form.field(name) != nil } else { false }
    }
}
