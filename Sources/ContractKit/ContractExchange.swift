import Foundation

/// A request ready to send: placeholders filled, body serialised.
///
/// ```swift
/// let request = try interaction.request.render(with: variables)
/// request.target   // "/token/refresh?verbose=1"
/// ```
public struct ContractRequest: Sendable, Equatable {
    /// HTTP method.
    public var method: String
    /// Path and query string, percent-encoded.
    public var target: String
    /// Headers in order.
    public var headers: [(name: String, value: String)]
    /// The body, if any.
    public var body: Data?

    /// Creates a request.
    public init(method: String, target: String, headers: [(name: String, value: String)] = [], body: Data? = nil) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.method == rhs.method && lhs.target == rhs.target && lhs.body == rhs.body
            && lhs.headers.map(\.name) == rhs.headers.map(\.name) && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }
}

/// A response as received.
///
/// ```swift
/// let response = ContractResponse(status: 200, headers: [("Content-Type", "application/json")], body: data)
/// response.header("content-type")   // "application/json"
/// ```
public struct ContractResponse: Sendable {
    /// Status code.
    public var status: Int
    /// Headers in order.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: Data

    /// Creates a response.
    public init(status: Int, headers: [(name: String, value: String)], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name.lowercased() == lowered }?.value
    }

    /// The body as JSON, nil when it is not JSON.
    public var json: JSONValue? {
        body.isEmpty ? nil : try? JSONValue(parsing: body)
    }
}

extension RequestSpec {
    /// The request with `variables` filled in; a `json` body also gets
    /// `Content-Type: application/json` unless the contract sets one.
    /// - Throws: ``Template/UndefinedVariable``.
    public func render(with variables: [String: JSONValue]) throws -> ContractRequest {
        var target = try path.render(variables)
        if !query.isEmpty {
            var components = URLComponents()
            components.queryItems = try query.map { URLQueryItem(name: $0.name, value: try $0.value.render(variables)) }
            target += "?" + (components.percentEncodedQuery ?? "")
        }
        var headers = try self.headers.map { (name: $0.name, value: try $0.value.render(variables)) }
        var data: Data?
        switch body {
        case .none:
            break
        case .json(let value):
            data = Data(try value.rendered(variables).description.utf8)
            if !headers.contains(where: { $0.name.lowercased() == "content-type" }) {
                headers.append((name: "Content-Type", value: "application/json"))
            }
        case .text(let template):
            data = Data(try template.render(variables).utf8)
        }
        return ContractRequest(method: method, target: target, headers: headers, body: data)
    }
}

extension ResponseSpec {
    /// This expectation with templates in its literals (`user_id: "{{sub}}"`) replaced by
    /// saved values; `undefined` lists the names no earlier interaction saved.
    ///
    /// ```swift
    /// let (spec, undefined) = interaction.response.resolved(with: saved)
    /// ```
    public func resolved(with variables: [String: JSONValue]) -> (spec: ResponseSpec, undefined: [String]) {
        var undefined: [String] = []
        let resolvedHeaders = headers.mapValues { $0.resolved(with: variables, undefined: &undefined) }
        let resolvedBody: ResponseBodySpec =
            switch body {
            case .unspecified: .unspecified
            case .json(let matcher): .json(matcher.resolved(with: variables, undefined: &undefined))
            case .text(let matcher): .text(matcher.resolved(with: variables, undefined: &undefined))
            }
        var seen = Set<String>()
        undefined = undefined.filter { seen.insert($0).inserted }
        return (ResponseSpec(status: status, headers: resolvedHeaders, body: resolvedBody, strict: strict), undefined)
    }

    /// Every way `response` breaks this expectation: status, each declared header, each
    /// body path. Empty when it holds.
    public func mismatches(in response: ContractResponse) -> [Mismatch] {
        var found: [Mismatch] = []
        if response.status != status {
            found.append(Mismatch(path: "status", expected: String(status), actual: String(response.status)))
        }
        for name in headers.keys.sorted() {
            guard let matcher = headers[name] else { continue }
            guard let value = response.header(name) else {
                found.append(Mismatch(path: "header \(name)", expected: matcher.summary, actual: "no such header"))
                continue
            }
            found += matcher.mismatches(in: .string(value)).map {
                Mismatch(path: "header \(name)", expected: $0.expected, actual: $0.actual)
            }
        }
        switch body {
        case .unspecified:
            break
        case .json(let matcher):
            guard let json = response.json else {
                let text = String(decoding: response.body.prefix(80), as: UTF8.self)
                found.append(Mismatch(path: "body", expected: "JSON", actual: response.body.isEmpty ? "an empty body" : "text \(JSONValue.string(text))"))
                break
            }
            found += matcher.mismatches(in: json, strict: strict)
        case .text(let matcher):
            found += matcher.mismatches(in: .string(String(decoding: response.body, as: UTF8.self))).map {
                Mismatch(path: "body", expected: $0.expected, actual: $0.actual)
            }
        }
        return found
    }
}

extension Interaction {
    /// The variables this interaction's `save` captures from `response`, and a ``Mismatch``
    /// for each path that is absent.
    public func captures(from response: ContractResponse) -> (values: [String: JSONValue], missing: [Mismatch]) {
        guard !save.isEmpty else { return ([:], []) }
        let json = response.json ?? .null
        var values: [String: JSONValue] = [:]
        var missing: [Mismatch] = []
        for name in save.keys.sorted() {
            guard let path = save[name] else { continue }
            if let value = path.value(in: json) {
                values[name] = value
            } else {
                missing.append(Mismatch(path: path.description, expected: "a value to save as '\(name)'", actual: "nothing"))
            }
        }
        return (values, missing)
    }
}
