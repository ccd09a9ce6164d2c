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
    /// Where it was sent, when known (`https://auth.example`, `http://127.0.0.1:8765`): a
    /// stub's examples name it as `{{request.base_url}}`, so the URLs its answers hold (a
    /// discovery document's endpoints) lead back to it. Not part of what was sent.
    public var baseURL: String?

    /// Creates a request.
    public init(
        method: String, target: String, headers: [(name: String, value: String)] = [], body: Data? = nil, baseURL: String? = nil
    ) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.baseURL = baseURL
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
        firstHeader(name, in: headers)
    }

    /// The body as JSON, nil when it is not JSON.
    public var json: JSONValue? {
        body.isEmpty ? nil : try? JSONValue(parsing: body)
    }
}

extension ContractRequest {
    /// The path (percent-decoded) and the decoded query items of ``target``.
    ///
    /// ```swift
    /// ContractRequest(method: "GET", target: "/notes/a%20b?page=2").pathAndQuery   // ("/notes/a b", [("page", "2")])
    /// ```
    public var pathAndQuery: (path: String, query: [(name: String, value: String)]) {
        guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return (Self.decoded(target), []) }
        let path = String(target[..<mark])
        var components = URLComponents()
        components.percentEncodedQuery = String(target[target.index(after: mark)...])
        let items = (components.queryItems ?? []).map { (name: $0.name, value: $0.value ?? "") }
        return (Self.decoded(path), items)
    }

    /// `path` without its percent-encoding; most paths have none, and are not copied.
    private static func decoded(_ path: String) -> String {
        guard path.utf8.contains(UInt8(ascii: "%")) else { return path }
        return path.removingPercentEncoding ?? path
    }

    /// The first value of header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        firstHeader(name, in: headers)
    }
}

extension RequestSpec {
    /// The request with `variables` filled in and every matcher replaced by its `example`
    /// (or a generated value; a `totp` code from `codes`, or the key's code now without it; a
    /// WebAuthn credential from `authenticators`, a `signed` JWT in the JSON body from
    /// `identityProvider`); a `json` body also gets `Content-Type:
    /// application/json` unless the contract sets one, a `form` body `Content-Type:
    /// application/x-www-form-urlencoded`, and a `multipart` body a fresh boundary (in
    /// `Content-Type: multipart/form-data; boundary=…`, or added to the contract's own). A run renders with
    /// `render(with:waitingFor:authenticators:)` (ContractRunner), which waits when a code's steps are used up
    /// instead of throwing.
    /// - Throws: `Template/UndefinedVariable`, `MatcherSampleError`, what `codes` and
    ///   `authenticators` throw.
    public func render(
        with variables: [String: JSONValue], codes: (any TOTPCodeSource)? = nil, authenticators: (any WebAuthnCredentialSource)? = nil,
        identityProvider: (any TokenMinter)? = nil
    ) throws -> ContractRequest {
        var target = try path.render(with: variables, codes: codes)
        if !query.isEmpty {
            var components = URLComponents()
            components.queryItems = try query.map {
                URLQueryItem(name: $0.name, value: try $0.value.sampleText(with: variables, at: "query \($0.name)", codes: codes))
            }
            target += "?" + (components.percentEncodedQuery ?? "")
        }
        var headers = try self.headers.map {
            (name: $0.name, value: try $0.value.sampleText(with: variables, at: "header \($0.name)", codes: codes))
        }
        var data: Data?
        switch body {
        case .none:
            break
        case .json(let matcher):
            data = Data(
                try matcher.sampleValue(with: variables, codes: codes, authenticators: authenticators, identityProvider: identityProvider)
                    .description.utf8)
            if firstHeader("Content-Type", in: headers) == nil {
                headers.append((name: "Content-Type", value: "application/json"))
            }
        case .text(let template):
            data = Data(try template.render(variables).utf8)
        case .form(let form):
            data = try form.encoded { try $0.value.sampleText(with: variables, at: "form \($0.name)", codes: codes) }
            if firstHeader("Content-Type", in: headers) == nil {
                headers.append((name: "Content-Type", value: FormBody.contentType))
            }
        case .multipart(let parts):
            let boundary = MultipartEncoding.newBoundary()
            data = MultipartEncoding.encode(
                try parts.map { try $0.rendered(with: variables, codes: codes, authenticators: authenticators) }, boundary: boundary)
            // The boundary is the body's: a contract's own Content-Type gets it as a parameter.
            if let index = headers.firstIndex(where: { isSameHeaderName($0.name, "Content-Type") }) {
                if MultipartEncoding.boundary(in: headers[index].value) == nil { headers[index].value += "; boundary=\(boundary)" }
            } else {
                headers.append((name: "Content-Type", value: MultipartEncoding.contentType(boundary: boundary)))
            }
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
            case .form(let form): .form(form.resolved(with: variables, undefined: &undefined))
            }
        let resolvedLocation = location?.resolved(with: variables, undefined: &undefined)
        let resolvedCookies = cookies.mapValues { $0.resolved(with: variables, undefined: &undefined) }
        let resolvedHTML = html.map { $0.resolved(with: variables, undefined: &undefined) }
        var seen = Set<String>()
        undefined = undefined.filter { seen.insert($0).inserted }
        return (
            ResponseSpec(
                status: status, headers: resolvedHeaders, body: resolvedBody, strict: strict, location: resolvedLocation,
                cookies: resolvedCookies, html: resolvedHTML, otherStatuses: otherStatuses),
            undefined
        )
    }

    /// Every way `response` breaks this expectation: status, each declared header, each
    /// body path. Empty when it holds.
    public func mismatches(in response: ContractResponse) -> [Mismatch] {
        var found: [Mismatch] = []
        if !statuses.contains(response.status) {
            found.append(
                Mismatch(path: "status", expected: statuses.map(String.init).joined(separator: " or "), actual: String(response.status)))
        }
        found += Matcher.headerMismatches(headers, in: response.header)
        switch body {
        case .unspecified:
            break
        case .json(let matcher):
            guard let json = response.json else {
                let text = String(decoding: response.body.prefix(80), as: UTF8.self)
                found.append(
                    Mismatch(
                        path: "body", expected: "JSON", actual: response.body.isEmpty ? "an empty body" : "text \(JSONValue.string(text))"))
                break
            }
            // An ID token's at_hash is checked against the access token of the same answer.
            found += matcher.bindingAccessTokenHashes(in: json).mismatches(in: json, strict: strict)
        case .text(let matcher):
            found += matcher.mismatches(in: .string(String(decoding: response.body, as: UTF8.self))).map {
                Mismatch(path: "body", expected: $0.expected, actual: $0.actual)
            }
        case .form(let form):
            found += form.mismatches(in: response.body, strict: strict)
        }
        if let location { found += location.mismatches(in: response.header("Location"), strict: strict) }
        if !cookies.isEmpty {
            let set = SetCookie.all(in: response.headers)
            for name in cookies.keys.sorted() {
                found += cookies[name]?.mismatches(in: set.last { $0.name == name }, name: name) ?? []
            }
        }
        if !html.isEmpty {
            let page = HTMLDocument(parsing: String(decoding: response.body, as: UTF8.self))
            for assertion in html { found += assertion.mismatches(in: page) }
        }
        return found
    }
}

extension Matcher {
    /// Every way the headers `lookup` finds (by name, case-insensitively) break `expected`:
    /// one mismatch for a header that is absent, one per way a present one fails its matcher,
    /// each at `header NAME`; names in order. A response's and a delivery's check.
    ///
    /// ```swift
    /// Matcher.headerMismatches(["Cache-Control": Matcher(.literal(.string("no-store")))], in: response.header)
    /// ```
    public static func headerMismatches(_ expected: [String: Matcher], in lookup: (String) -> String?) -> [Mismatch] {
        var found: [Mismatch] = []
        for name in expected.keys.sorted() {
            guard let matcher = expected[name] else { continue }
            guard let value = lookup(name) else {
                found.append(Mismatch(path: "header \(name)", expected: matcher.summary, actual: "no such header"))
                continue
            }
            found += matcher.mismatches(in: .string(value)).map {
                Mismatch(path: "header \(name)", expected: $0.expected, actual: $0.actual)
            }
        }
        return found
    }
}

extension Interaction {
    /// The variables this interaction's `save` captures from the exchange — `response`'s
    /// body and headers, and what `request` sent — and a `Mismatch` for each source that
    /// is absent. Sources on a side passed as nil are left out: a stub saves what the
    /// request sent before it builds the answer, which may repeat it.
    public func captures(request: ContractRequest?, response: ContractResponse?) -> (values: [String: JSONValue], missing: [Mismatch]) {
        guard !save.isEmpty else { return ([:], []) }
        var values: [String: JSONValue] = [:]
        var missing: [Mismatch] = []
        lazy var responseJSON = response?.json ?? .null
        lazy var requestJSON = request?.body.flatMap { try? JSONValue(parsing: $0) } ?? .null
        lazy var pathAndQuery = request?.pathAndQuery
        lazy var page = response.map { HTMLDocument(parsing: String(decoding: $0.body, as: UTF8.self)) }
        for name in save.keys.sorted() {
            guard let source = save[name], source.isFromRequest ? request != nil : response != nil else { continue }
            let value: JSONValue? =
                switch source {
                case .responseBody(let path): path.value(in: responseJSON)
                case .responseHeader(let header): response?.header(header).map(JSONValue.string)
                case .requestBody(let path): path.value(in: requestJSON)
                case .requestHeader(let header): request?.header(header).map(JSONValue.string)
                case .requestQuery(let item): pathAndQuery?.query.first { $0.name == item }.map { .string($0.value) }
                case .requestForm(let field): request?.body.flatMap(FormBody.object(of:))?[field]
                case .responseForm(let field): response.flatMap { FormBody.object(of: $0.body) }?[field]
                case .responseLocation: response?.header("Location").map(JSONValue.string)
                case .responseLocationQuery(let item):
                    response?.header("Location").flatMap { LocationSpec.parts(of: $0).query.first { $0.name == item } }.map {
                        .string($0.value)
                    }
                case .responseHTML(let source): page.flatMap(source.value(in:)).map(JSONValue.string)
                case .responseCookie(let cookie):
                    response.flatMap { SetCookie.all(in: $0.headers).last { $0.name == cookie } }.map { .string($0.value) }
                case .requestPath(let parameter):
                    pathAndQuery.flatMap { self.request.path.match($0.path, known: [:])?[parameter] }.map(JSONValue.string)
                }
            if let value {
                values[name] = value
            } else {
                missing.append(Mismatch(path: source.description, expected: "a value to save as '\(name)'", actual: "nothing"))
            }
        }
        return (values, missing)
    }
}

/// The first value of header `name` in `headers`, names compared as ``isSameHeaderName(_:_:)``
/// compares them: the one lookup of a header by name for requests, responses, contracts'
/// matchers and deliveries.
///
/// ```swift
/// firstHeader("content-type", in: [(name: "Content-Type", value: "application/json")])   // "application/json"
/// ```
public func firstHeader<Value>(_ name: String, in headers: [(name: String, value: Value)]) -> Value? {
    headers.first { isSameHeaderName($0.name, name) }?.value
}

/// Whether two header names are the same: equal but for the case of ASCII letters (header
/// names are ASCII tokens, RFC 9110 §5.1), compared without lowercasing copies of either.
///
/// ```swift
/// isSameHeaderName("Content-Type", "content-type")   // true
/// isSameHeaderName("X-Trace@1", "x-trace`1")         // false: only letters fold
/// ```
public func isSameHeaderName(_ first: String, _ second: String) -> Bool {
    guard first.utf8.count == second.utf8.count else { return false }
    return zip(first.utf8, second.utf8).allSatisfy { one, other in
        let folded = one | 0x20
        return one == other || (folded == other | 0x20 && folded >= UInt8(ascii: "a") && folded <= UInt8(ascii: "z"))
    }
}
