import Yams

extension YAMLReader {
    /// A matcher tree: mappings with `match` are typed matchers, other mappings objects,
    /// lists arrays, scalars literals.
    mutating func matcher(_ node: Node, _ what: String) -> Matcher? {
        switch node {
        case .scalar:
            return scalarJSON(node).map { Matcher(.literal($0)) }
        case .sequence(let sequence):
            var elements: [Matcher] = []
            var ok = true
            for element in sequence {
                if let matcher = matcher(element, what) { elements.append(matcher) } else { ok = false }
            }
            return ok ? Matcher(.array(elements)) : nil
        case .alias:
            error(node, "YAML aliases are not supported in \(what)")
            return nil
        case .mapping(let mapping):
            let isTyped = mapping.contains { key, _ in key.string == "match" }
            if isTyped { return typedMatcher(node, what) }
            guard let pairs = self.mapping(node, what) else { return nil }
            var members: [String: Matcher] = [:]
            var ok = true
            for (key, value) in pairs {
                if let matcher = matcher(value, what) { members[key] = matcher } else { ok = false }
            }
            return ok ? Matcher(.object(members)) : nil
        }
    }

    private mutating func typedMatcher(_ node: Node, _ what: String) -> Matcher? {
        guard case .mapping(let mapping) = node, let nameNode = mapping["match"] else { return nil }
        // `match: null` names the null matcher, so the name is read as written.
        guard let name = scalarText(nameNode, "match") else { return nil }
        let options: [String: [String]] = [
            "string": ["min_length", "max_length"], "integer": ["min", "max"], "number": ["min", "max"],
            "boolean": [], "null": [], "any": [], "regex": ["pattern"], "uuid": [], "datetime": [], "jwt": ["claims"],
            "jwks": ["min", "max"], "each": ["of", "min", "max"],
        ]
        guard let allowed = options[name] else {
            error(nameNode, "unknown matcher '\(name)' (expected one of: \(Matcher.names.joined(separator: ", ")))")
            return nil
        }
        guard let pairs = self.mapping(node, "matcher '\(name)'", allowed: ["match", "example"] + allowed) else { return nil }
        var values: [String: Node] = [:]
        for (key, value) in pairs { values[key] = value }

        let kind: Matcher.Kind
        switch name {
        case "string":
            kind = .string(minLength: values["min_length"].flatMap { integer($0, "min_length") }, maxLength: values["max_length"].flatMap { integer($0, "max_length") })
        case "integer":
            kind = .integer(min: values["min"].flatMap { number($0, "min") }, max: values["max"].flatMap { number($0, "max") })
        case "number":
            kind = .number(min: values["min"].flatMap { number($0, "min") }, max: values["max"].flatMap { number($0, "max") })
        case "boolean": kind = .boolean
        case "null": kind = .null
        case "any": kind = .any
        case "uuid": kind = .uuid
        case "datetime": kind = .datetime
        case "jwt":
            var claims: [String: Matcher] = [:]
            if let claimsNode = values["claims"] {
                guard let claimPairs = self.mapping(claimsNode, "'claims'") else { return nil }
                for (claim, claimNode) in claimPairs {
                    guard let claimMatcher = matcher(claimNode, "claim '\(claim)'") else { return nil }
                    claims[claim] = claimMatcher
                }
            }
            kind = .jwt(claims: claims)
        case "jwks": kind = .jwks(min: values["min"].flatMap { integer($0, "min") }, max: values["max"].flatMap { integer($0, "max") })
        case "regex":
            guard let patternNode = values["pattern"] else {
                error(node, "matcher 'regex' needs 'pattern'")
                return nil
            }
            guard let pattern = string(patternNode, "pattern") else { return nil }
            do {
                _ = try Regex(pattern)
            } catch {
                self.error(patternNode, "invalid regular expression '\(pattern)': \(error)")
                return nil
            }
            kind = .regex(pattern)
        case "each":
            guard let ofNode = values["of"] else {
                error(node, "matcher 'each' needs 'of' (the matcher for every element)")
                return nil
            }
            guard let element = matcher(ofNode, "'of'") else { return nil }
            kind = .each(of: element, min: values["min"].flatMap { integer($0, "min") }, max: values["max"].flatMap { integer($0, "max") })
        default:
            return nil
        }

        var example: JSONValue?
        if let exampleNode = values["example"] {
            example = json(exampleNode, "example")
            if let example {
                let problems = Matcher(kind).mismatches(in: example)
                if let problem = problems.first {
                    error(exampleNode, "example does not match its matcher: \(problem)")
                }
            }
        }
        return Matcher(kind, example: example)
    }
}
