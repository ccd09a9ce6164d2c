import Foundation
import Yams

/// Writes contracts as YAML (for `contract record` and `contract import`): literals quoted
/// where a plain scalar would read as something else, typed matchers as flow mappings
/// (`{ match: uuid }`). What it writes reads back as the same contract.
package enum ContractYAML {
    package static func text(_ string: String) -> Node {
        .scalar(Node.Scalar(string, .implicit, needsQuotes(string) ? .doubleQuoted : .plain))
    }

    package static func value(_ json: JSONValue) -> Node {
        switch json {
        case .string(let string): text(string)
        case .integer, .number, .bool: .scalar(Node.Scalar(json.description, .implicit, .plain))
        case .null: .scalar(Node.Scalar("null", .implicit, .plain))
        case .array(let elements): .sequence(Node.Sequence(elements.map(value), .implicit, elements.isEmpty ? .flow : .block))
        case .object(let members):
            .mapping(
                Node.Mapping(
                    members.keys.sorted().compactMap { key in members[key].map { (text(key), value($0)) } }, .implicit,
                    members.isEmpty ? .flow : .block))
        }
    }

    package static func matcher(_ matcher: Matcher) -> Node {
        var pairs: [(Node, Node)] = []
        func add(_ key: String, _ json: JSONValue?) {
            if let json { pairs.append((text(key), value(json))) }
        }
        // An optional literal or object is written as the one alternative of a one_of.
        if matcher.optional {
            switch matcher.kind {
            case .literal, .object, .array: return self.matcher(Matcher(.oneOf([matcher.optional(false)]), optional: true))
            default: break
            }
        }
        switch matcher.kind {
        case .literal(let json): return value(json)
        case .object(let members):
            return .mapping(
                Node.Mapping(
                    members.keys.sorted().compactMap { key in members[key].map { (text(key), self.matcher($0)) } }, .implicit,
                    members.isEmpty ? .flow : .block))
        case .array(let elements):
            return .sequence(Node.Sequence(elements.map(self.matcher), .implicit, elements.isEmpty ? .flow : .block))
        case .typed(let kind):
            add("match", .string(kind.name))
            for (key, argument) in kind.arguments {
                switch argument {
                case .value(let json): add(key, json)
                case .matcher(let inner): pairs.append((text(key), self.matcher(inner)))
                case .matchers(let list): pairs.append((text(key), .sequence(Node.Sequence(list.map(self.matcher), .implicit, .flow))))
                case .members(let members):
                    pairs.append(
                        (
                            text(key),
                            .mapping(
                                Node.Mapping(
                                    members.keys.sorted().compactMap { name in members[name].map { (text(name), self.matcher($0)) } },
                                    .implicit, .flow))
                        ))
                }
            }
        }
        add("example", matcher.example)
        if matcher.optional { add("optional", .bool(true)) }
        return .mapping(Node.Mapping(pairs, .implicit, .flow))
    }

    /// A whole contract file.
    package static func contract(name: String, interactions: [Interaction], comments: [String] = []) throws -> String {
        let root = mapping([
            ("name", text(name)), ("interactions", .sequence(Node.Sequence(interactions.map(interaction), .implicit, .block))),
        ])
        let header = comments.map { "# \($0)\n" }.joined()
        let yaml = try Yams.serialize(node: root, width: -1, allowUnicode: true)
        return header + yaml + (yaml.hasSuffix("\n") ? "" : "\n")
    }

    /// A state's `saves`: its names, or each name with what its value must be.
    private static func saves(_ use: ProviderStateUse) -> Node {
        guard !use.expected.isEmpty else { return .sequence(Node.Sequence(use.saves.map(text), .implicit, .flow)) }
        return mapping(use.saves.map { name in (name, use.expected[name].map(matcher) ?? mapping([("match", text("any"))])) })
    }

    /// One interaction, keys in the order a person writes them.
    package static func interaction(_ interaction: Interaction) -> Node {
        var pairs: [(String, Node)] = [("name", text(interaction.name))]
        if !interaction.given.isEmpty {
            let uses = interaction.given.map { use -> Node in
                use.params.isEmpty && use.saves.isEmpty
                    ? text(use.state)
                    : mapping(
                        [("state", text(use.state))] + (use.params.isEmpty ? [] : [("params", value(.object(use.params)))])
                            + (use.saves.isEmpty ? [] : [("saves", saves(use))]))
            }
            pairs.append(("given", .sequence(Node.Sequence(uses, .implicit, .block))))
        }
        if let after = interaction.after {
            pairs.append(("after", text(JSONValue.numeric(after).description + "s")))
        }
        let request = interaction.request
        var requestPairs: [(String, Node)] = [("method", text(request.method)), ("path", text(request.path.text))]
        if !request.path.params.isEmpty {
            requestPairs.append(
                (
                    "path_params",
                    mapping(request.path.parameterNames.compactMap { name in request.path.params[name].map { (name, matcher($0)) } })
                ))
        }
        if !request.query.isEmpty { requestPairs.append(("query", mapping(request.query.map { ($0.name, matcher($0.value)) }))) }
        if !request.headers.isEmpty { requestPairs.append(("headers", mapping(request.headers.map { ($0.name, matcher($0.value)) }))) }
        switch request.body {
        case .none: break
        case .json(let body): requestPairs.append(("json", matcher(body)))
        case .text(let template): requestPairs.append(("body", text(template.text)))
        case .form(let form): requestPairs.append(("form", self.form(form)))
        case .multipart(let parts): requestPairs.append(("multipart", .sequence(Node.Sequence(parts.map(part), .implicit, .block))))
        }
        if request.followRedirects { requestPairs.append(("follow_redirects", value(.bool(true)))) }
        pairs.append(("request", mapping(requestPairs)))
        let response = interaction.response
        var responsePairs: [(String, Node)] = [
            (
                "status",
                response.otherStatuses.isEmpty
                    ? value(.integer(response.status))
                    : .sequence(Node.Sequence(response.statuses.map { value(.integer($0)) }, .implicit, .flow))
            )
        ]
        if !response.headers.isEmpty {
            responsePairs.append(
                (
                    "headers",
                    mapping(response.headers.keys.sorted().compactMap { name in response.headers[name].map { (name, matcher($0)) } })
                ))
        }
        if response.strict { responsePairs.append(("strict", value(.bool(true)))) }
        switch response.body {
        case .unspecified: break
        case .json(let body): responsePairs.append(("json", matcher(body)))
        case .text(let body): responsePairs.append(("body", matcher(body)))
        case .form(let form): responsePairs.append(("form", self.form(form)))
        }
        responsePairs += browserParts(of: response)
        pairs.append(("response", mapping(responsePairs)))
        if !interaction.save.isEmpty {
            pairs.append(
                (
                    "save",
                    mapping(
                        interaction.save.keys.sorted().compactMap { name in interaction.save[name].map { (name, text($0.description)) } })
                ))
        }
        if !interaction.delivers.isEmpty {
            pairs.append(("delivers", .sequence(Node.Sequence(interaction.delivers.map(delivery), .implicit, .block))))
        }
        return mapping(pairs)
    }

    /// One delivery (`delivers:`), leaving out what is the default (`method: POST`, `within: 5`).
    package static func delivery(_ delivery: Delivery) -> Node {
        var pairs: [(String, Node)] = []
        if delivery.method != "POST" { pairs.append(("method", text(delivery.method))) }
        pairs.append(("path", text(delivery.path.text)))
        if !delivery.headers.isEmpty {
            pairs.append(
                (
                    "headers",
                    mapping(delivery.headers.keys.sorted().compactMap { name in delivery.headers[name].map { (name, matcher($0)) } })
                ))
        }
        if let body = delivery.body { pairs.append(("json", matcher(body))) }
        if delivery.within != Delivery.defaultWithin { pairs.append(("within", value(.numeric(delivery.within)))) }
        if !delivery.save.isEmpty {
            pairs.append(
                (
                    "save",
                    mapping(delivery.save.keys.sorted().compactMap { name in delivery.save[name].map { (name, text($0.description)) } })
                ))
        }
        return mapping(pairs)
    }

    /// A `form:` mapping, fields in order.
    package static func form(_ form: FormBody) -> Node {
        mapping(form.fields.map { ($0.name, matcher($0.value)) })
    }

    /// One `multipart:` part.
    package static func part(_ part: MultipartPart) -> Node {
        var pairs: [(String, Node)] = [("name", text(part.name))]
        if let filename = part.filename { pairs.append(("filename", text(filename))) }
        if !part.headers.isEmpty { pairs.append(("headers", mapping(part.headers.map { ($0.name, matcher($0.value)) }))) }
        switch part.body {
        case .text(let body): pairs.append(("body", matcher(body)))
        case .json(let body): pairs.append(("json", matcher(body)))
        }
        return mapping(pairs)
    }

    package static func mapping(_ pairs: [(String, Node)]) -> Node {
        .mapping(Node.Mapping(pairs.map { (text($0.0), $0.1) }, .implicit, .block))
    }

    /// Whether `string` must be quoted to read back as this string.
    package static func needsQuotes(_ string: String) -> Bool {
        guard let first = string.unicodeScalars.first, let last = string.unicodeScalars.last else { return true }
        if ["null", "Null", "NULL", "~", "true", "True", "TRUE", "false", "False", "FALSE", "yes", "no", "on", "off"].contains(string) {
            return true
        }
        if Double(string) != nil || Int(string) != nil { return true }
        if string.range(of: #"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$"#, options: .regularExpression) != nil { return true }
        if !(CharacterSet.letters.contains(first) || first == "/" || first == "_") || last == " " { return true }
        if string.contains(": ") || string.contains(" #") { return true }
        return string.unicodeScalars.contains {
            !(CharacterSet.alphanumerics.contains($0) || " _-./()+;=@$%^&*?!~<>".unicodeScalars.contains($0)) || $0.value > 127
        }
    }

    /// A response's `location`, `cookies` and `html`, as the reader takes them.
    static func browserParts(of response: ResponseSpec) -> [(String, Node)] {
        var pairs: [(String, Node)] = []
        if let location = response.location {
            var locationPairs: [(String, Node)] = [("url", matcher(location.url))]
            if !location.query.isEmpty { locationPairs.append(("query", mapping(location.query.map { ($0.name, matcher($0.value)) }))) }
            pairs.append(("location", mapping(locationPairs)))
        }
        if !response.cookies.isEmpty {
            let cookies = response.cookies.keys.sorted().compactMap { name -> (String, Node)? in
                guard let cookie = response.cookies[name] else { return nil }
                var cookiePairs: [(String, Node)] = []
                if let value = cookie.value { cookiePairs.append(("value", matcher(value))) }
                if let httpOnly = cookie.httpOnly { cookiePairs.append(("http_only", self.value(.bool(httpOnly)))) }
                if let secure = cookie.secure { cookiePairs.append(("secure", self.value(.bool(secure)))) }
                if let sameSite = cookie.sameSite { cookiePairs.append(("same_site", text(sameSite))) }
                if let path = cookie.path { cookiePairs.append(("path", matcher(path))) }
                if let domain = cookie.domain { cookiePairs.append(("domain", text(domain))) }
                if let maxAge = cookie.maxAge { cookiePairs.append(("max_age", matcher(maxAge))) }
                return (name, mapping(cookiePairs))
            }
            pairs.append(("cookies", mapping(cookies)))
        }
        if !response.html.isEmpty {
            let checks = response.html.map { check -> Node in
                var checkPairs: [(String, Node)] = [("select", text(check.selector.description))]
                if !check.attributes.isEmpty {
                    checkPairs.append(
                        (
                            "attributes",
                            mapping(
                                check.attributes.keys.sorted().compactMap { name in check.attributes[name].map { (name, matcher($0)) } })
                        ))
                }
                if let text = check.text { checkPairs.append(("text", matcher(text))) }
                if let count = check.count { checkPairs.append(("count", value(.integer(count)))) }
                return mapping(checkPairs)
            }
            pairs.append(("html", .sequence(Node.Sequence(checks, .implicit, .block))))
        }
        return pairs
    }
}
