/// What a `Set-Cookie` of one name must say (`cookies:` in a response, RFC 6265 §4.1): its
/// value by a matcher, and each attribute the contract names; an attribute left out is not
/// checked. `max_age: 0` is a cookie being removed.
///
/// ```yaml
/// response:
///   cookies:
///     __Host-session:
///       value: { match: string, min_length: 32 }
///       http_only: true
///       secure: true
///       same_site: Lax
///       path: /
///       max_age: { match: integer, min: 1 }
/// ```
public struct CookieSpec: Sendable, Equatable {
    /// The value; nil: any.
    public let value: Matcher?
    /// `HttpOnly` must be set (true) or absent (false).
    public let httpOnly: Bool?
    /// `Secure` must be set (true) or absent (false).
    public let secure: Bool?
    /// `SameSite`'s value (`Strict`, `Lax` or `None`, any case); `""` for none.
    public let sameSite: String?
    /// `Path`.
    public let path: Matcher?
    /// `Domain`; `""` for none (a host-only cookie).
    public let domain: String?
    /// `Max-Age`, an integer matcher.
    public let maxAge: Matcher?

    /// Creates a cookie expectation.
    public init(
        value: Matcher? = nil, httpOnly: Bool? = nil, secure: Bool? = nil, sameSite: String? = nil, path: Matcher? = nil,
        domain: String? = nil, maxAge: Matcher? = nil
    ) {
        self.value = value
        self.httpOnly = httpOnly
        self.secure = secure
        self.sameSite = sameSite
        self.path = path
        self.domain = domain
        self.maxAge = maxAge
    }

    /// This expectation with `{{name}}`s filled from `variables`.
    public func resolved(with variables: [String: JSONValue], undefined: inout [String]) -> CookieSpec {
        CookieSpec(
            value: value?.resolved(with: variables, undefined: &undefined), httpOnly: httpOnly, secure: secure, sameSite: sameSite,
            path: path?.resolved(with: variables, undefined: &undefined), domain: domain,
            maxAge: maxAge?.resolved(with: variables, undefined: &undefined))
    }

    /// Every `{{name}}` it uses.
    public var templateVariables: [String] {
        (value?.templateVariables ?? []) + (path?.templateVariables ?? []) + (maxAge?.templateVariables ?? [])
    }

    /// Every way `cookie` (nil when none of this `name` was set) breaks this expectation, at
    /// `cookie NAME` and `cookie NAME ATTRIBUTE`.
    public func mismatches(in cookie: SetCookie?, name: String) -> [Mismatch] {
        let place = "cookie \(name)"
        guard let cookie else { return [Mismatch(path: place, expected: "a Set-Cookie of \(name)", actual: "none")] }
        var found: [Mismatch] = []
        if let value { found += value.mismatches(inText: cookie.value, at: place) }
        func flag(_ expected: Bool?, _ actual: Bool, _ attribute: String) {
            guard let expected, expected != actual else { return }
            found.append(Mismatch(path: "\(place) \(attribute)", expected: expected ? "set" : "absent", actual: actual ? "set" : "absent"))
        }
        flag(httpOnly, cookie.httpOnly, "HttpOnly")
        flag(secure, cookie.secure, "Secure")
        if let sameSite, sameSite.lowercased() != (cookie.sameSite ?? "").lowercased() {
            found.append(
                Mismatch(
                    path: "\(place) SameSite", expected: sameSite.isEmpty ? "absent" : sameSite, actual: cookie.sameSite ?? "absent"))
        }
        if let path {
            if let actual = cookie.path {
                found += path.mismatches(inText: actual, at: "\(place) Path")
            } else {
                found.append(Mismatch(path: "\(place) Path", expected: path.summary, actual: "absent"))
            }
        }
        if let domain, domain.lowercased() != (cookie.domain ?? "").lowercased() {
            found.append(Mismatch(path: "\(place) Domain", expected: domain.isEmpty ? "absent" : domain, actual: cookie.domain ?? "absent"))
        }
        if let maxAge {
            if let actual = cookie.maxAge {
                found += maxAge.mismatches(in: .integer(actual)).map {
                    Mismatch(path: "\(place) Max-Age", expected: $0.expected, actual: $0.actual)
                }
            } else {
                found.append(Mismatch(path: "\(place) Max-Age", expected: maxAge.summary, actual: "absent"))
            }
        }
        return found
    }

    /// A `Set-Cookie` value that satisfies this expectation, `sample` giving the value and the
    /// `Max-Age`; a `Path` of `/` unless the contract says otherwise.
    public func header(name: String, _ sample: (Matcher, String) throws -> JSONValue) throws -> String {
        let value = try self.value.map { try sample($0, "cookie \(name)").text } ?? "stub-\(name)"
        var parts = ["\(name)=\(value)"]
        parts.append("Path=\(try path.map { try sample($0, "cookie \(name) Path").text } ?? "/")")
        if let domain, !domain.isEmpty { parts.append("Domain=\(domain)") }
        if let maxAge { parts.append("Max-Age=\(try sample(maxAge, "cookie \(name) Max-Age").text)") }
        if let sameSite, !sameSite.isEmpty { parts.append("SameSite=\(sameSite)") }
        if httpOnly == true { parts.append("HttpOnly") }
        if secure == true || name.hasPrefix("__Host-") || name.hasPrefix("__Secure-") { parts.append("Secure") }
        return parts.joined(separator: "; ")
    }
}
