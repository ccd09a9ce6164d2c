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
        guard let allowed = Matcher.parameters.first(where: { $0.key == name })?.value else {
            error(nameNode, "unknown matcher '\(name)' (expected one of: \(Matcher.names.joined(separator: ", ")))")
            return nil
        }
        // A TOTP code depends on the moment, a WebAuthn credential on a challenge: no example
        // can be written down.
        // Nor is one for Basic credentials needed: their parts have values.
        let common = name == "totp" || name.hasPrefix("webauthn_") || name == "basic_auth" ? ["match"] : ["match", "example"]
        guard let pairs = self.mapping(node, "matcher '\(name)'", allowed: common + allowed + ["optional"]) else { return nil }
        var values: [String: Node] = [:]
        for (key, value) in pairs { values[key] = value }

        let kind: Matcher.Kind
        switch name {
        case "string":
            kind = .string(
                minLength: values["min_length"].flatMap { integer($0, "min_length") },
                maxLength: values["max_length"].flatMap { integer($0, "max_length") })
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
                    guard let claimMatcher = matcher(claimNode, "claim '\(claim)'", inRequest: inRequest, member: true) else { return nil }
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
            guard let element = matcher(ofNode, "'of'", inRequest: inRequest) else { return nil }
            kind = .each(of: element, min: values["min"].flatMap { integer($0, "min") }, max: values["max"].flatMap { integer($0, "max") })
        case "one_of":
            guard let ofNode = values["of"], case .sequence(let sequence) = ofNode, !sequence.isEmpty else {
                error(values["of"] ?? node, "matcher 'one_of' needs 'of': a list of the matchers a value may match")
                return nil
            }
            var alternatives: [Matcher] = []
            for alternativeNode in sequence {
                guard let alternative = matcher(alternativeNode, "an alternative of one_of", inRequest: inRequest) else { return nil }
                alternatives.append(alternative)
            }
            kind = .oneOf(alternatives)
        case "totp":
            guard inRequest else {
                error(node, "a totp matcher belongs in a request (a code the verifier computes), not in a response or a delivery")
                return nil
            }
            guard let spec = totpSpec(node, values) else { return nil }
            kind = .totp(spec)
        case "webauthn_registration", "webauthn_assertion":
            guard inRequest else {
                error(
                    node,
                    "a \(name) matcher belongs in a request (a credential the verifier's authenticator makes), not in a response or a delivery"
                )
                return nil
            }
            let ceremony: WebAuthnSpec.Ceremony = name == "webauthn_registration" ? .registration : .assertion
            guard let spec = webAuthnSpec(ceremony, node, values) else { return nil }
            kind = .webauthn(spec)
        case "basic_auth":
            guard let usernameNode = values["username"], let passwordNode = values["password"] else {
                error(
                    node,
                    "matcher 'basic_auth' needs 'username' and 'password' (each a literal, a \"{{saved}}\" value or a matcher of text)")
                return nil
            }
            guard let username = textMatcher(usernameNode, "the basic_auth username", inRequest: inRequest),
                let password = textMatcher(passwordNode, "the basic_auth password", inRequest: inRequest)
            else { return nil }
            if case .literal(.string(let text)) = username.kind, text.contains(":") {
                error(usernameNode, "a basic_auth username cannot hold ':' (RFC 7617), not '\(text)'")
                return nil
            }
            kind = .basicAuth(username: username, password: password)
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
        var optional = false
        if let optionalNode = values["optional"] {
            optional = bool(optionalNode, "optional") ?? false
            if optional && !member {
                error(optionalNode, "optional: true belongs on a key of an object (a value that may be absent), not on \(what)")
                return nil
            }
        }
        return Matcher(kind, example: example, optional: optional)
    }
}

extension YAMLReader {
    /// A `totp` matcher's options: `secret` (required: base32, or a `{{name}}`), `digits`
    /// 6–8, `period` in seconds, `algorithm` SHA1, SHA256 or SHA512.
    private mutating func totpSpec(_ node: Node, _ values: [String: Node]) -> TOTPSpec? {
        guard let secretNode = values["secret"] else {
            error(node, "matcher 'totp' needs 'secret' (the key in base32, usually a saved value such as \"{{totp_secret}}\")")
            return nil
        }
        guard let secret = string(secretNode, "secret") else { return nil }
        var spec = TOTPSpec(secret: secret)
        var ok = true
        if spec.variables.isEmpty, Base32.decode(secret)?.isEmpty ?? true {
            error(
                secretNode,
                "secret must be base32 (letters A–Z and digits 2–7) or a saved value such as \"{{totp_secret}}\", not '\(secret)'")
            ok = false
        }
        if let digitsNode = values["digits"] {
            if let digits = integer(digitsNode, "digits"), TOTP.allowedDigits.contains(digits) {
                spec.digits = digits
            } else {
                if case .integer? = scalarJSON(digitsNode) { error(digitsNode, "digits must be from 6 to 8") }
                ok = false
            }
        }
        if let periodNode = values["period"] {
            if let period = integer(periodNode, "period"), period >= 1 {
                spec.period = period
            } else {
                if case .integer? = scalarJSON(periodNode) { error(periodNode, "period must be at least 1 (seconds)") }
                ok = false
            }
        }
        if let algorithmNode = values["algorithm"], let name = string(algorithmNode, "algorithm") {
            if let algorithm = TOTP.Algorithm(rawValue: name.uppercased()) {
                spec.algorithm = algorithm
            } else {
                let known = TOTP.Algorithm.allCases.map(\.rawValue).joined(separator: ", ")
                error(algorithmNode, "unknown algorithm '\(name)' (expected one of: \(known))")
                ok = false
            }
        } else if values["algorithm"] != nil {
            ok = false
        }
        return ok ? spec : nil
    }
}
