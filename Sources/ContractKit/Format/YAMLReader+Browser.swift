import Yams

extension YAMLReader {
    /// `location:` of a response: `url` (required, text or a matcher of text) and `query`.
    mutating func location(_ node: Node) -> LocationSpec? {
        guard let pairs = mapping(node, "location", allowed: ["url", "query"], required: ["url"]) else { return nil }
        var url: Matcher?
        var query: [(name: String, value: Matcher)] = []
        var ok = true
        for (key, value) in pairs {
            if key == "url" {
                url = textMatcher(value, "location url")
            } else {
                for (name, parameterNode) in mapping(value, "location query") ?? [] {
                    if let matcher = textMatcher(parameterNode, "location query '\(name)'", member: true) {
                        query.append((name, matcher))
                    } else {
                        ok = false
                    }
                }
            }
        }
        guard let url, ok else { return nil }
        return LocationSpec(url: url, query: query)
    }

    /// One cookie of `cookies:`.
    mutating func cookie(_ node: Node, name: String) -> CookieSpec? {
        let what = "cookie '\(name)'"
        guard isCookieName(name) else {
            error(node, "\(what): a cookie name is a token (RFC 6265 §4.1.1: letters, digits and !#$%&'*+-.^_`|~)")
            return nil
        }
        let keys = ["value", "http_only", "secure", "same_site", "path", "domain", "max_age"]
        guard let pairs = mapping(node, what, allowed: keys) else { return nil }
        var value: Matcher?
        var httpOnly: Bool?
        var secure: Bool?
        var sameSite: String?
        var path: Matcher?
        var domain: String?
        var maxAge: Matcher?
        let before = diagnostics.count
        for (key, valueNode) in pairs {
            switch key {
            case "value": value = textMatcher(valueNode, "\(what) value")
            case "http_only": httpOnly = bool(valueNode, "\(what) http_only")
            case "secure": secure = bool(valueNode, "\(what) secure")
            case "same_site":
                if let text = string(valueNode, "\(what) same_site") {
                    if ["strict", "lax", "none", ""].contains(text.lowercased()) {
                        sameSite = text
                    } else {
                        error(valueNode, "\(what) same_site must be Strict, Lax, None or \"\" (absent), not '\(text)'")
                    }
                }
            case "path": path = textMatcher(valueNode, "\(what) path")
            case "domain": domain = string(valueNode, "\(what) domain")
            default:
                if let matcher = matcher(valueNode, "\(what) max_age") {
                    if matcher.jsonType == "integer" {
                        maxAge = matcher
                    } else {
                        error(valueNode, "\(what) max_age must be an integer or a matcher of integers")
                    }
                }
            }
        }
        // RFC 6265bis §4.1.3: the prefixes' promises, so that a contract cannot ask for less.
        if name.hasPrefix("__Host-") || name.hasPrefix("__Secure-") {
            if secure == false { error(node, "\(what): a \(name.hasPrefix("__Host-") ? "__Host-" : "__Secure-") cookie is always Secure") }
        }
        if name.hasPrefix("__Host-"), let domain, !domain.isEmpty {
            error(node, "\(what): a __Host- cookie has no Domain")
        }
        guard diagnostics.count == before else { return nil }
        return CookieSpec(
            value: value, httpOnly: httpOnly, secure: secure, sameSite: sameSite, path: path, domain: domain, maxAge: maxAge)
    }

    private func isCookieName(_ name: String) -> Bool {
        !name.isEmpty
            && name.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && scalar.value > 0x20 && scalar.value < 0x7F && !"()<>@,;:\\\"/[]?={}".unicodeScalars.contains(scalar)
            }
    }

    /// `html:` of a response: a list of `select` with `attributes`, `text` and `count`.
    mutating func htmlAssertions(_ node: Node) -> [HTMLAssertion] {
        guard case .sequence(let sequence) = node else {
            error(node, "html must be a list of { select: …, attributes: …, text: …, count: … }")
            return []
        }
        var assertions: [HTMLAssertion] = []
        for element in sequence {
            guard let pairs = mapping(element, "an html check", allowed: ["select", "attributes", "text", "count"], required: ["select"])
            else { continue }
            var selector: HTMLSelector?
            var attributes: [String: Matcher] = [:]
            var text: Matcher?
            var count: Int?
            let before = diagnostics.count
            for (key, value) in pairs {
                switch key {
                case "select":
                    if let written = string(value, "select") {
                        do { selector = try HTMLSelector(written) } catch { self.error(value, "select '\(written)': \(error)") }
                    }
                case "attributes":
                    for (name, matcherNode) in mapping(value, "attributes") ?? [] {
                        if let matcher = textMatcher(matcherNode, "attribute '\(name)'", member: true) {
                            attributes[name.lowercased()] = matcher
                        }
                    }
                case "text":
                    text = textMatcher(value, "text")
                default:
                    if let number = integer(value, "count") {
                        if number >= 0 { count = number } else { error(value, "count must be 0 or more") }
                    }
                }
            }
            if let selector, diagnostics.count == before {
                assertions.append(HTMLAssertion(selector: selector, attributes: attributes, text: text, count: count))
            }
        }
        return assertions
    }

    /// A literal (any scalar, as text) or a matcher of text, in a response.
    private mutating func textMatcher(_ node: Node, _ what: String, member: Bool = false) -> Matcher? {
        if case .scalar = node {
            return scalarText(node, what).map { Matcher(.literal(.string($0))) }
        }
        guard let matcher = matcher(node, what, member: member) else { return nil }
        guard matcher.appliesToText else {
            error(node, "\(what) must be text or a matcher of text, not \(matcher.summary)")
            return nil
        }
        return matcher
    }
}
