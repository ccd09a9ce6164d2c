import ContractKit
import Foundation

/// Which interactions can fit a request, found without fitting them: the stub fits only these
/// candidates, in the interactions' order, so the cost of an answer does not grow with
/// interactions that cannot answer it.
///
/// An interaction with a literal path is found by `METHOD path`; one whose path has
/// placeholders or parameters, by its method. Among a route's interactions, those whose JSON
/// body holds a literal string under the same top-level key (the `username` of a file of
/// logins, say) are found by that string: a request whose body carries another value there, or
/// none, cannot fit them (``RequestMatcher`` compares a literal for equality).
///
/// ```swift
/// let index = CandidateIndex(requests: interactions.map(\.request))
/// for position in index.candidates(for: ParsedRequest(request)) { … }
/// ```
struct CandidateIndex: Sendable {
    /// The interactions of one `METHOD path`.
    private struct Route: Sendable {
        /// The body key most of them hold a literal string under, if any does.
        var key: String?
        /// By that literal: the interactions that hold it.
        var byValue: [String: [Int]] = [:]
        /// The route's interactions without a literal under `key`: candidates for any body.
        var rest: [Int] = []
    }

    private let routes: [String: Route]
    private let byMethod: [String: [Int]]

    /// Indexes `requests` by their positions.
    init(requests: [RequestSpec]) {
        var literal: [String: [Int]] = [:]
        var byMethod: [String: [Int]] = [:]
        for (position, request) in requests.enumerated() {
            if request.path.isLiteral {
                literal[Self.routeKey(request.method, request.path.text), default: []].append(position)
            } else {
                byMethod[request.method, default: []].append(position)
            }
        }
        self.byMethod = byMethod
        routes = literal.mapValues { positions in Self.route(positions, requests) }
    }

    /// The positions of the interactions that can fit `parsed`, in ascending order.
    func candidates(for parsed: ParsedRequest) -> [Int] {
        let templated = byMethod[parsed.method] ?? []
        guard let route = routes[Self.routeKey(parsed.method, parsed.path)] else { return templated }
        var literal = route.rest
        if let key = route.key, case .object(let body)? = parsed.json, case .string(let value)? = body[key],
            let holding = route.byValue[value]
        {
            literal = Self.merged(literal, holding)
        }
        return templated.isEmpty ? literal : Self.merged(literal, templated)
    }

    /// A route's index: by the key whose literals tell the most interactions apart (the most
    /// distinct values; the first by name among equals), when it has at least two.
    private static func route(_ positions: [Int], _ requests: [RequestSpec]) -> Route {
        let literals = positions.map { literalStrings(of: requests[$0]) }
        var values: [String: Set<String>] = [:]
        for strings in literals { for (key, value) in strings { values[key, default: []].insert(value) } }
        guard let (key, distinct) = values.min(by: { ($1.value.count, $0.key) < ($0.value.count, $1.key) }), distinct.count >= 2 else {
            return Route(rest: positions)
        }
        var route = Route(key: key)
        for (position, strings) in zip(positions, literals) {
            if let value = strings[key] {
                route.byValue[value, default: []].append(position)
            } else {
                route.rest.append(position)
            }
        }
        return route
    }

    /// The top-level keys of a JSON body that must hold one literal string: not optional,
    /// with no placeholder (a placeholder's value is known only when the request comes).
    private static func literalStrings(of request: RequestSpec) -> [String: String] {
        guard case .json(let body) = request.body, case .object(let members) = body.kind else { return [:] }
        var strings: [String: String] = [:]
        for (key, member) in members where !member.optional {
            guard case .literal(.string(let text)) = member.kind else { continue }
            if Template.mayHavePlaceholders(text) && !Template(text).variables.isEmpty { continue }
            strings[key] = text
        }
        return strings
    }

    /// Two ascending lists as one.
    private static func merged(_ a: [Int], _ b: [Int]) -> [Int] {
        if a.isEmpty { return b }
        if b.isEmpty { return a }
        var result: [Int] = []
        result.reserveCapacity(a.count + b.count)
        var i = 0
        var j = 0
        while i < a.count || j < b.count {
            if j == b.count || (i < a.count && a[i] < b[j]) {
                result.append(a[i])
                i += 1
            } else {
                result.append(b[j])
                j += 1
            }
        }
        return result
    }

    private static func routeKey(_ method: String, _ path: String) -> String {
        method + " " + path
    }
}
