import Foundation
import WebForms

/// What a redirect's `Location` must be (`location:` in a response), read as a URL: the part
/// before `?` (scheme, host and path, or a path alone for a relative one) and each query
/// parameter by its own matcher. Parameters the contract does not list are allowed unless the
/// response is `strict`.
///
/// ```yaml
/// response:
///   status: 303
///   location:
///     url: "http://127.0.0.1:9999/callback"
///     query:
///       code: { match: string, min_length: 20 }
///       state: s1
/// save:
///   code: response.location.query.code
/// ```
public struct LocationSpec: Sendable, Equatable {
    /// The URL before its query: a literal or a matcher of text.
    public let url: Matcher
    /// The query parameters, in order.
    public let query: [(name: String, value: Matcher)]

    /// Creates an expectation of a `Location`.
    public init(url: Matcher, query: [(name: String, value: Matcher)] = []) {
        self.url = url
        self.query = query
    }

    /// Equal with the same parameters in any order (``RequestSpec``'s query is compared so too).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        let (left, right) = (sortedByName(lhs.query), sortedByName(rhs.query))
        return lhs.url == rhs.url && left.map(\.name) == right.map(\.name) && left.map(\.value) == right.map(\.value)
    }

    /// This expectation with `{{name}}`s filled from `variables`.
    public func resolved(with variables: [String: JSONValue], undefined: inout [String]) -> LocationSpec {
        LocationSpec(
            url: url.resolved(with: variables, undefined: &undefined),
            query: query.map { ($0.name, $0.value.resolved(with: variables, undefined: &undefined)) })
    }

    /// Every `{{name}}` it uses.
    public var templateVariables: [String] { url.templateVariables + query.flatMap(\.value.templateVariables) }

    /// A `Location` split into the URL before `?` and its query parameters, decoded as a
    /// form is; a fragment is left out.
    ///
    /// ```swift
    /// LocationSpec.parts(of: "https://app.example/cb?code=a%2Bb&scope=openid+email")   // ("https://app.example/cb", [("code", "a+b"), ("scope", "openid email")])
    /// ```
    public static func parts(of location: String) -> (url: String, query: [(name: String, value: String)]) {
        let withoutFragment = location.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        guard let mark = withoutFragment.firstIndex(of: "?") else { return (withoutFragment, []) }
        // A redirect's parameters are form-encoded (RFC 6749 Appendix B): `+` is a space.
        let query = Data(withoutFragment[withoutFragment.index(after: mark)...].utf8)
        return (String(withoutFragment[..<mark]), FormEncoding.decode(query) ?? [])
    }

    /// Every way `location` (nil when the response has none) breaks this expectation, each at
    /// `location` or `location.query.NAME`; `strict`: no parameter beyond those listed.
    public func mismatches(in location: String?, strict: Bool) -> [Mismatch] {
        guard let location else { return [Mismatch(path: "location", expected: "a Location header", actual: "none")] }
        let (base, items) = Self.parts(of: location)
        var found = url.mismatches(inText: base, at: "location")
        for (name, matcher) in query {
            let values = items.filter { $0.name == name }
            guard let first = values.first else {
                if !matcher.optional {
                    found.append(Mismatch(path: "location.query.\(name)", expected: matcher.summary, actual: "no such parameter"))
                }
                continue
            }
            if values.count > 1 {
                // RFC 6749 §3.1: a parameter is sent at most once.
                found.append(Mismatch(path: "location.query.\(name)", expected: "one value", actual: "\(values.count) values"))
            }
            found += matcher.mismatches(inText: first.value, at: "location.query.\(name)")
        }
        if strict {
            let listed = Set(query.map(\.name))
            for extra in items.map(\.name) where !listed.contains(extra) {
                found.append(Mismatch(path: "location.query.\(extra)", expected: "no such parameter (strict)", actual: "present"))
            }
        }
        return found
    }

    /// A `Location` that satisfies this expectation: the URL's value and each parameter's,
    /// the query encoded as a form is (`sample` gives each value).
    public func built(_ sample: (Matcher, String) throws -> String) throws -> String {
        let base = try sample(url, "location")
        var items: [(name: String, value: String)] = []
        for (name, matcher) in query { items.append((name, try sample(matcher, "location.query.\(name)"))) }
        guard !items.isEmpty else { return base }
        var components = URLComponents()
        components.queryItems = items.map { URLQueryItem(name: $0.name, value: $0.value) }
        // `+` would read as a space in a form-encoded query: encode it.
        let query = (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
        return base + (base.contains("?") ? "&" : "?") + query
    }
}
