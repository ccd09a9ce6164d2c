import Yams

extension YAMLReader {
    /// A matcher tree: mappings with `match` are typed matchers, other mappings objects,
    /// lists arrays, scalars literals. `inRequest`: what a request sends, where a `totp` or a
    /// `webauthn_…` matcher may be (a response or a delivery cannot be checked against a code
    /// or a credential). `member`: the value of an object's key (or a JWT's claim), which may
    /// be `optional: true`.
    mutating func matcher(_ node: Node, _ what: String, inRequest: Bool = false, member: Bool = false) -> Matcher? {
        switch node {
        case .scalar:
            return scalarJSON(node).map { Matcher(.literal($0)) }
        case .sequence(let sequence):
            var elements: [Matcher] = []
            var ok = true
            for element in sequence {
                if let matcher = matcher(element, what, inRequest: inRequest) { elements.append(matcher) } else { ok = false }
            }
            return ok ? Matcher(.array(elements)) : nil
        case .alias:
            error(node, "YAML aliases are not supported in \(what)")
            return nil
        case .mapping(let mapping):
            let isTyped = mapping.contains { key, _ in key.string == "match" }
            if isTyped { return typedMatcher(node, what, inRequest: inRequest, member: member) }
            guard let pairs = self.mapping(node, what) else { return nil }
            var members: [String: Matcher] = [:]
            var ok = true
            for (key, value) in pairs {
                if let matcher = matcher(value, what, inRequest: inRequest, member: true) { members[key] = matcher } else { ok = false }
            }
            return ok ? Matcher(.object(members)) : nil
        }
    }

    private mutating func typedMatcher(_ node: Node, _ what: String, inRequest: Bool, member: Bool) -> Matcher? {
        guard case .mapping(let mapping) = node, let nameNode = mapping["match"] else { return nil }
        // `match: null` names the null matcher, so the name is read as written.
        guard let name = scalarText(nameNode, "match") else { return nil }
        guard let kind = MatcherKinds.named(name) else {
            error(nameNode, "unknown matcher '\(name)' (expected one of: \(MatcherKinds.names.joined(separator: ", ")))")
            return nil
        }
        let common = kind.takesExample ? ["match", "example"] : ["match"]
        guard let pairs = self.mapping(node, "matcher '\(name)'", allowed: common + kind.parameters(of: name) + ["optional"]) else {
            return nil
        }
        var values: [String: Node] = [:]
        for (key, value) in pairs { values[key] = value }

        var arguments = Arguments(reader: self, node: node, values: values, inRequest: inRequest)
        let read = kind.read(name, from: &arguments)
        self = arguments.reader
        guard let read, arguments.ok else { return nil }

        var example: JSONValue?
        if let exampleNode = values["example"] {
            example = json(exampleNode, "example")
            if let example {
                // `{{request.base_url}}` is the stub's own origin, one like the examples'.
                let sample = Matcher(.typed(read), example: example).sampleExample ?? example
                let problems = Matcher(.typed(read)).mismatches(in: sample)
                if let problem = problems.first {
                    error(exampleNode, "example does not match its matcher: \(problem)")
                }
            }
        }
        var optional = false
        if let optionalNode = values["optional"] {
            optional = bool(optionalNode, "optional") ?? false
            if optional && !member {
                error(optionalNode, "optional: true belongs on a key of an object (a value that may be absent), not on \(what)")
                return nil
            }
        }
        return Matcher(.typed(read), example: example, optional: optional)
    }

    /// A matcher's keys as its kind reads them, problems reported at their lines.
    private struct Arguments: MatcherArguments {
        var reader: YAMLReader
        let node: Node
        let values: [String: Node]
        let inRequest: Bool
        /// No problem was reported.
        private(set) var ok = true

        func has(_ key: String) -> Bool { values[key] != nil }
        func scalar(_ key: String) -> JSONValue? { values[key].flatMap(reader.scalarJSON) }

        mutating func integer(_ key: String) -> Int? { read(key) { $0.integer($1, key) } }
        mutating func number(_ key: String) -> Double? { read(key) { $0.number($1, key) } }
        mutating func string(_ key: String) -> String? { read(key) { $0.string($1, key) } }
        mutating func bool(_ key: String) -> Bool? { read(key) { $0.bool($1, key) } }

        mutating func matcher(_ key: String, as what: String, member: Bool, text: Bool) -> Matcher? {
            let inRequest = inRequest
            return read(key) { reader, node in
                text
                    ? reader.textMatcher(node, what, inRequest: inRequest, member: member)
                    : reader.matcher(node, what, inRequest: inRequest, member: member)
            }
        }

        mutating func matchers(_ key: String, as what: String) -> [Matcher]? {
            guard let node = values[key] else { return nil }
            guard case .sequence(let sequence) = node else {
                error(at: key, "'\(key)' must be a list of matchers, not \(reader.describe(node))")
                return nil
            }
            var matchers: [Matcher] = []
            for element in sequence {
                guard let matcher = reader.matcher(element, what, inRequest: inRequest) else {
                    ok = false
                    return nil
                }
                matchers.append(matcher)
            }
            return matchers
        }

        mutating func members(_ key: String, as what: (String) -> String) -> [String: Matcher]? {
            guard let node = values[key] else { return nil }
            guard let pairs = reader.mapping(node, "'\(key)'") else {
                ok = false
                return nil
            }
            var members: [String: Matcher] = [:]
            for (name, memberNode) in pairs {
                guard let member = reader.matcher(memberNode, what(name), inRequest: inRequest, member: true) else {
                    ok = false
                    return nil
                }
                members[name] = member
            }
            return members
        }

        mutating func error(at key: String?, _ message: String) {
            reader.error(key.flatMap { values[$0] } ?? node, message)
            ok = false
        }

        /// `key`'s value by `convert`, which reports what is wrong with it.
        private mutating func read<Value>(_ key: String, _ convert: (inout YAMLReader, Node) -> Value?) -> Value? {
            guard let node = values[key] else { return nil }
            let value = convert(&reader, node)
            if value == nil { ok = false }
            return value
        }
    }
}
