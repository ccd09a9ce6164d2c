import ContractKit

/// A Pact matching-rule path (`$.items[*].id`, `$['odd key']`, `$.*`) and the rules under it.
struct PactPath {
    typealias Step = JSONPath.Step

    let steps: [Step]

    /// Parses a path; nil when it does not parse.
    init?(_ text: String) {
        guard let steps = try? JSONPath.steps(text, wildcards: true) else { return nil }
        self.steps = steps
    }

    /// How well this path names `concrete`: nil when it does not, else higher for more
    /// exact steps (as Pact weighs competing rules).
    func weight(for concrete: [JSONPath.Component]) -> Int? {
        guard steps.count == concrete.count else { return nil }
        var weight = 0
        for (step, component) in zip(steps, concrete) {
            switch (step, component) {
            case (.key(let a), .key(let b)) where a == b: weight += 2
            case (.index(let a), .index(let b)) where a == b: weight += 2
            case (.anyKey, .key), (.anyIndex, .index): weight += 1
            default: return nil
            }
        }
        return weight
    }
}

/// One Pact matcher (`{"match": "type", "min": 1}`) and the list a place has.
struct PactRule {
    /// `type`, `regex`, `integer`, …; v2's `{"regex": …}` and `{"min": 1}` read as `regex` and `type`.
    let kind: String
    let options: [String: JSONValue]

    init(_ object: [String: JSONValue]) {
        options = object
        if case .string(let kind)? = object["match"] {
            self.kind = kind
        } else if object["regex"] != nil {
            kind = "regex"
        } else {
            kind = "type"
        }
    }

    func string(_ key: String) -> String? {
        if case .string(let text)? = options[key] { text } else { nil }
    }

    func integer(_ key: String) -> Int? {
        if case .integer(let value)? = options[key] { value } else { nil }
    }

    /// The rules of a place: `{"matchers": [...], "combine": "AND"}` (v3, v4) or one rule (v2).
    static func list(_ value: JSONValue) -> (rules: [PactRule], combine: String) {
        guard case .object(let object) = value else { return ([], "AND") }
        if case .array(let matchers)? = object["matchers"] {
            let rules = matchers.compactMap { if case .object(let rule) = $0 { PactRule(rule) } else { nil } }
            if case .string(let combine)? = object["combine"] { return (rules, combine) }
            return (rules, "AND")
        }
        return ([PactRule(object)], "AND")
    }
}

/// The matching rules of a request or a response, by category, whatever the spec version.
struct PactRuleBook {
    var body: [(path: PactPath, rules: [PactRule], combine: String)] = []
    var headers: [String: (rules: [PactRule], combine: String)] = [:]
    var query: [String: (rules: [PactRule], combine: String)] = [:]
    var path: (rules: [PactRule], combine: String)?
    /// Paths that did not parse.
    var unreadable: [String] = []

    /// Reads v3/v4 `matchingRules` (`{"body": {"$.a": {...}}, "header": {...}}`) or v2's flat
    /// `{"$.body.a": {...}, "$.headers.X": {...}}`.
    init(_ value: JSONValue?) {
        guard case .object(let object)? = value else { return }
        let isV2 = object.keys.contains { $0.hasPrefix("$") }
        if isV2 {
            for (key, rule) in object {
                let list = PactRule.list(rule)
                if key == "$.body" || key.hasPrefix("$.body.") || key.hasPrefix("$.body[") {
                    addBody("$" + key.dropFirst("$.body".count), list)
                } else if key.hasPrefix("$.headers.") {
                    headers[String(key.dropFirst("$.headers.".count)).lowercased()] = list
                } else if key.hasPrefix("$.query.") {
                    query[String(key.dropFirst("$.query.".count))] = list
                } else if key == "$.path" {
                    path = list
                } else {
                    unreadable.append(key)
                }
            }
            return
        }
        if case .object(let body)? = object["body"] {
            for (key, rule) in body { addBody(key, PactRule.list(rule)) }
        }
        if case .object(let header)? = object["header"] {
            for (name, rule) in header { headers[name.lowercased()] = PactRule.list(rule) }
        }
        if case .object(let queries)? = object["query"] {
            for (name, rule) in queries { query[name] = PactRule.list(rule) }
        }
        if let pathRules = object["path"] {
            path = PactRule.list(pathRules)
        }
    }

    private mutating func addBody(_ key: String, _ list: (rules: [PactRule], combine: String)) {
        guard let path = PactPath(key) else {
            unreadable.append(key)
            return
        }
        body.append((path, list.rules, list.combine))
    }

    /// The rules of the body path that names `concrete` best.
    func bodyRules(at concrete: [JSONPath.Component]) -> (rules: [PactRule], combine: String)? {
        var best: (weight: Int, rules: [PactRule], combine: String)?
        for entry in body {
            guard let weight = entry.path.weight(for: concrete), weight > (best?.weight ?? -1) else { continue }
            best = (weight, entry.rules, entry.combine)
        }
        return best.map { ($0.rules, $0.combine) }
    }
}
