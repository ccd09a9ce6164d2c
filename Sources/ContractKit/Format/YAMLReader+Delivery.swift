import Yams

extension YAMLReader {
    /// The `delivers:` list of an interaction. Placeholders may use `defined` (saved by
    /// earlier interactions and by this one's `save`); each delivery's `save` names are
    /// added to `saved`.
    mutating func deliveries(_ node: Node, defined: Set<String>, saved: inout Set<String>) -> [Delivery]? {
        guard case .sequence(let sequence) = node else {
            error(node, "delivers must be a list of deliveries, not \(describe(node))")
            return nil
        }
        var deliveries: [Delivery] = []
        var ok = true
        for element in sequence {
            if let delivery = delivery(element, defined: defined.union(saved), saved: &saved) {
                deliveries.append(delivery)
            } else {
                ok = false
            }
        }
        return ok ? deliveries : nil
    }

    private mutating func delivery(_ node: Node, defined: Set<String>, saved: inout Set<String>) -> Delivery? {
        let keys = ["method", "path", "headers", "json", "within", "save"]
        guard let pairs = mapping(node, "a delivery", allowed: keys, required: ["path"]) else { return nil }
        let before = diagnostics.count
        var method = "POST"
        var path: Template?
        var headers: [String: Matcher] = [:]
        var body: Matcher?
        var within = Delivery.defaultWithin
        var saveNode: Node?
        for (key, value) in pairs {
            switch key {
            case "method":
                if let text = string(value, "method") {
                    let upper = text.uppercased()
                    if !upper.isEmpty && upper.allSatisfy({ $0.isLetter }) {
                        method = upper
                    } else {
                        error(value, "'\(text)' is not an HTTP method")
                    }
                }
            case "path":
                if let text = string(value, "a delivery's path") {
                    if text.hasPrefix("/") { path = Template(text) } else { error(value, "a delivery's path must start with '/'") }
                    checkVariables(Template(text).requiredVariables, at: value, defined: defined)
                }
            case "headers":
                for (name, valueNode) in mapping(value, "a delivery's headers") ?? [] {
                    let matcher: Matcher?
                    if case .scalar = valueNode {
                        matcher = scalarText(valueNode, "header '\(name)'").map { Matcher(.literal(.string($0))) }
                    } else {
                        matcher = self.matcher(valueNode, "header '\(name)'")
                    }
                    guard let matcher else { continue }
                    if !matcher.appliesToText {
                        error(valueNode, "header '\(name)' must be text or a matcher of text, not \(matcher.summary)")
                        continue
                    }
                    checkVariables(matcher.templateVariables, at: valueNode, defined: defined)
                    headers[name.lowercased()] = matcher
                }
            case "json":
                body = matcher(value, "a delivery's json")
                if let body { checkVariables(body.templateVariables, at: value, defined: defined) }
            case "within":
                if let seconds = number(value, "within") {
                    if seconds > 0 && seconds.isFinite {
                        within = seconds
                    } else {
                        error(value, "within must be a positive number of seconds, not \(scalarText(value, "within") ?? "")")
                    }
                }
            default:
                saveNode = value
            }
        }
        var save: [String: JSONPath] = [:]
        if let saveNode {
            for (variable, sourceNode) in mapping(saveNode, "a delivery's save") ?? [] {
                guard let text = string(sourceNode, "save '\(variable)'") else { continue }
                guard text.hasPrefix("$") else {
                    error(
                        sourceNode,
                        "invalid source for '\(variable)': a delivery saves from its JSON body, so the source is a path such as $.token, not '\(text)'"
                    )
                    continue
                }
                do {
                    save[variable] = try JSONPath(text)
                } catch {
                    self.error(sourceNode, "invalid source for '\(variable)': \(error)")
                    continue
                }
                if body == nil && !pairs.contains(where: { $0.key == "json" }) {
                    error(sourceNode, "saving \(text) needs the delivery's json")
                }
            }
        }
        saved.formUnion(save.keys)
        guard diagnostics.count == before, let path else { return nil }
        return Delivery(
            method: method, path: path, headers: headers, body: body, within: within, save: save,
            location: SourceLocation(file: file, line: node.mark?.line ?? 0)
        )
    }
}
