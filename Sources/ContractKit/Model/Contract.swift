/// One contract file: a name and interactions that run in order.
///
/// ```swift
/// let suite = try ContractLoader.load(directory: "contracts")
/// for contract in suite.contracts { print(contract.name, contract.interactions.count) }
/// ```
public struct Contract: Sendable, Equatable {
    /// The file's `name`.
    public let name: String
    /// The file it came from.
    public let file: String
    /// Interactions, in the order they run.
    public let interactions: [Interaction]

    /// Creates a contract.
    public init(name: String, file: String, interactions: [Interaction]) {
        self.name = name
        self.file = file
        self.interactions = interactions
    }
}

/// One request and the response it must get.
public struct Interaction: Sendable, Equatable {
    /// What it shows, in a sentence.
    public let name: String
    /// Where it is written.
    public let location: SourceLocation
    /// Provider states to set up first.
    public let given: [ProviderStateUse]
    /// The request to send.
    public let request: RequestSpec
    /// What must come back.
    public let response: ResponseSpec
    /// Variables captured from the exchange (the response body by default, or what the
    /// request sent) for later interactions.
    public let save: [String: SaveSource]
    /// Messages the provider must send elsewhere when it answers (`delivers:`), in order.
    public let delivers: [Delivery]
    /// Seconds that pass before the request is sent (`after: 901s`): the verifier moves the
    /// provider's clock through `contract.yaml`'s `clock:` hook and the stub's by as much; the
    /// stub answers with this interaction only once its clock moved that far since it last
    /// answered in the file. Nil: no time passes.
    public let after: Double?

    /// The longest time step, in seconds (`after:`, and a stub's `/test/clock`): ten years.
    public static let longestStep: Double = 315_360_000

    /// Creates an interaction.
    public init(
        name: String, location: SourceLocation, given: [ProviderStateUse], request: RequestSpec, response: ResponseSpec,
        save: [String: SaveSource],
        delivers: [Delivery] = [], after: Double? = nil
    ) {
        self.after = after
        self.name = name
        self.location = location
        self.given = given
        self.request = request
        self.response = response
        self.save = save
        self.delivers = delivers
    }
}

extension Interaction {
    /// The same interaction under another name, or written at another place (a file shown as
    /// `HEAD:contracts/login.yaml`); every other part is kept.
    ///
    /// ```swift
    /// let shown = interaction.with(location: SourceLocation(file: "HEAD:contracts/login.yaml", line: interaction.location.line))
    /// ```
    public func with(name: String? = nil, location: SourceLocation? = nil) -> Interaction {
        Interaction(
            name: name ?? self.name, location: location ?? self.location, given: given, request: request, response: response, save: save,
            delivers: delivers, after: after
        )
    }
}

/// A provider state an interaction needs, with its parameters.
public struct ProviderStateUse: Sendable, Equatable {
    /// The state's name, as in `contract.yaml`.
    public let state: String
    /// Parameters substituted into its set-up.
    public let params: [String: JSONValue]
    /// The values its set-up answers (`saves: [code]`), which this interaction and the later
    /// ones of its file use as `{{code}}`: a command prints them as a JSON object, a state
    /// URL answers one (Pact's provider-state values). Empty: the set-up answers nothing used.
    public let saves: [String]
    /// What some of those values must be, where `saves` was written as a mapping
    /// (`saves: { code: { match: string }, iss: "{{env.ISSUER}}" }`): a provider's redirect
    /// back to the client, checked as a response is.
    public let expected: [String: Matcher]

    /// Creates a use of a state.
    public init(state: String, params: [String: JSONValue], saves: [String] = [], expected: [String: Matcher] = [:]) {
        self.state = state
        self.params = params
        self.saves = saves
        self.expected = expected
    }

    /// This use with the `{{name}}`s in its parameters' text and its expected values filled
    /// from `variables`, where every one is known: a set-up may take what an earlier
    /// interaction of the file saved (the authorization endpoint a discovery document named).
    public func resolved(with variables: [String: JSONValue]) -> ProviderStateUse {
        let filled = params.mapValues { value -> JSONValue in
            guard case .string(let text) = value, Template.mayHavePlaceholders(text), let rendered = try? Template(text).render(variables)
            else { return value }
            return .string(rendered)
        }
        var undefined: [String] = []
        let checks = expected.mapValues { $0.resolved(with: variables, undefined: &undefined) }
        return ProviderStateUse(state: state, params: filled, saves: saves, expected: checks)
    }
}

/// A request body as written.
public enum RequestBody: Sendable, Equatable {
    /// No body.
    case none
    /// JSON: literals (strings may hold `{{var}}` placeholders) and matchers.
    case json(Matcher)
    /// Raw text (may be malformed JSON on purpose).
    case text(Template)
    /// `application/x-www-form-urlencoded` fields (`form:`).
    case form(FormBody)
    /// `multipart/form-data` parts (`multipart:`).
    case multipart([MultipartPart])
}

/// The request of an interaction. Every value is a `Matcher`: a literal (whose text may
/// hold `{{var}}` placeholders) or a typed matcher such as `{ match: uuid }`, which the
/// stub accepts any satisfying value for and the verifier sends the `example` of (or a
/// generated value).
public struct RequestSpec: Sendable, Equatable {
    /// HTTP method, upper case.
    public let method: String
    /// Path, starting with `/`; `{name}` segments are `pathParams`.
    public let path: RequestPath
    /// Query parameters, in order.
    public let query: [(name: String, value: Matcher)]
    /// Headers, in order.
    public let headers: [(name: String, value: Matcher)]
    /// The body.
    public let body: RequestBody
    /// Whether a redirect to the provider itself is followed (`follow_redirects: true`), the
    /// last answer being the one checked; by default the redirect is the answer.
    public let followRedirects: Bool

    /// Creates a request.
    public init(
        method: String, path: RequestPath, query: [(name: String, value: Matcher)] = [], headers: [(name: String, value: Matcher)] = [],
        body: RequestBody = .none, followRedirects: Bool = false
    ) {
        self.followRedirects = followRedirects
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// Two requests are equal with the same query parameters in any order, as a form's fields
    /// are: no side reads a query by position (and JSON, which carries contracts through
    /// OpenAPI, keeps no key order).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        let (left, right) = (sortedByName(lhs.query), sortedByName(rhs.query))
        return lhs.method == rhs.method && lhs.path == rhs.path && lhs.body == rhs.body && lhs.followRedirects == rhs.followRedirects
            && left.map(\.name) == right.map(\.name) && left.map(\.value) == right.map(\.value)
            && lhs.headers.map(\.name) == rhs.headers.map(\.name) && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }

    /// Every variable the request uses.
    public var variables: [String] {
        var names = path.variables + query.flatMap(\.value.templateVariables) + headers.flatMap(\.value.templateVariables)
        switch body {
        case .none: break
        case .json(let matcher): names += matcher.templateVariables
        case .text(let template): names += template.variables
        case .form(let form): names += form.templateVariables
        case .multipart(let parts): names += parts.flatMap(\.templateVariables)
        }
        return names
    }
}

/// Where a saved value comes from.
///
/// ```yaml
/// save:
///   refresh: $.refresh_token                 # the response's JSON body
///   location: response.headers.Location     # a response header
///   sent_name: request.json.username        # what the request's JSON body held
///   note: request.path.id                   # a path parameter's value
///   page: request.query.page                # a query parameter
///   client: request.headers.X-Client-Id     # a request header
///   scope: request.form.scope               # a field of the request's form body
///   state: response.form.state              # a field of the response's form body
///   code: response.location.query.code      # a query parameter of the redirect's Location
///   next: response.location                 # the whole Location
///   csrf: response.html.input[name=csrf]@value   # an attribute (or @text) of the first element a CSS selector finds
///   session: response.cookies.__Host-id     # the value of a cookie the response sets
/// ```
public enum SaveSource: Sendable, Hashable, CustomStringConvertible {
    /// A path into the response's JSON body.
    case responseBody(JSONPath)
    /// A response header (case-insensitive name).
    case responseHeader(String)
    /// A path into the request's JSON body.
    case requestBody(JSONPath)
    /// A path parameter (`{name}` in the request's path).
    case requestPath(String)
    /// A query parameter of the request.
    case requestQuery(String)
    /// A request header (case-insensitive name).
    case requestHeader(String)
    /// A field of the request's form body.
    case requestForm(String)
    /// A field of the response's form body.
    case responseForm(String)
    /// The response's `Location`.
    case responseLocation
    /// A query parameter of the response's `Location`.
    case responseLocationQuery(String)
    /// A value on the response's HTML page.
    case responseHTML(HTMLValueSource)
    /// The value of a cookie the response sets.
    case responseCookie(String)

    /// Whether the value comes from the request (else from the response).
    public var isFromRequest: Bool {
        switch self {
        case .responseBody, .responseHeader, .responseForm, .responseLocation, .responseLocationQuery, .responseHTML, .responseCookie: false
        case .requestBody, .requestPath, .requestQuery, .requestHeader, .requestForm: true
        }
    }

    /// As written in a contract.
    public var description: String {
        switch self {
        case .responseBody(let path): path.description
        case .responseHeader(let name): "response.headers.\(name)"
        case .requestBody(let path): "request.json" + path.description.dropFirst()
        case .requestPath(let name): "request.path.\(name)"
        case .requestQuery(let name): "request.query.\(name)"
        case .requestHeader(let name): "request.headers.\(name)"
        case .requestForm(let name): "request.form.\(name)"
        case .responseForm(let name): "response.form.\(name)"
        case .responseLocation: "response.location"
        case .responseLocationQuery(let name): "response.location.query.\(name)"
        case .responseHTML(let source): "response.html.\(source)"
        case .responseCookie(let name): "response.cookies.\(name)"
        }
    }

    /// Parses a `save` source.
    /// - Throws: `JSONPath/Invalid` with the reason.
    public init(_ text: String) throws {
        func name(after prefix: String) throws -> String {
            let name = String(text.dropFirst(prefix.count))
            guard !name.isEmpty else { throw JSONPath.Invalid(description: "a name must follow '\(prefix)'") }
            return name
        }
        if text.hasPrefix("$") {
            self = .responseBody(try JSONPath(text))
        } else if text == "request.json" || text.hasPrefix("request.json.") || text.hasPrefix("request.json[") {
            self = .requestBody(try JSONPath("$" + text.dropFirst("request.json".count)))
        } else if text.hasPrefix("request.path.") {
            self = .requestPath(try name(after: "request.path."))
        } else if text.hasPrefix("request.query.") {
            self = .requestQuery(try name(after: "request.query."))
        } else if text.hasPrefix("request.headers.") {
            self = .requestHeader(try name(after: "request.headers."))
        } else if text.hasPrefix("response.headers.") {
            self = .responseHeader(try name(after: "response.headers."))
        } else if text.hasPrefix("request.form.") {
            self = .requestForm(try name(after: "request.form."))
        } else if text.hasPrefix("response.form.") {
            self = .responseForm(try name(after: "response.form."))
        } else if text == "response.location" {
            self = .responseLocation
        } else if text.hasPrefix("response.location.query.") {
            self = .responseLocationQuery(try name(after: "response.location.query."))
        } else if text.hasPrefix("response.html.") {
            self = .responseHTML(try HTMLValueSource(name(after: "response.html.")))
        } else if text.hasPrefix("response.cookies.") {
            self = .responseCookie(try name(after: "response.cookies."))
        } else {
            throw JSONPath.Invalid(
                description:
                    "'\(text)' is neither a JSON path ($.a.b) nor request.json…, request.path.NAME, request.query.NAME, request.headers.NAME, request.form.NAME, response.headers.NAME, response.form.NAME, response.location(.query.NAME), response.html.SELECTOR@ATTRIBUTE or response.cookies.NAME"
            )
        }
    }
}

/// A response body as the contract expects it.
public enum ResponseBodySpec: Sendable, Equatable {
    /// Nothing is said about the body.
    case unspecified
    /// JSON matching a matcher tree.
    case json(Matcher)
    /// Text matching a matcher (a literal string or a string matcher).
    case text(Matcher)
    /// An `application/x-www-form-urlencoded` body whose fields match (`form:`).
    case form(FormBody)
}

/// The response an interaction must get.
public struct ResponseSpec: Sendable, Equatable {
    /// The status code (the stub's answer).
    public let status: Int
    /// Other status codes the answer may have, where a standard leaves the choice (`status:
    /// [303, 302]`: a redirect of either kind).
    public let otherStatuses: [Int]
    /// Header matchers by lower-cased name (names match case-insensitively).
    public let headers: [String: Matcher]
    /// The body.
    public let body: ResponseBodySpec
    /// Forbid keys the contract does not list, at every level (and query parameters of the
    /// `location` it does not list).
    public let strict: Bool
    /// The redirect's `Location`, read as a URL (`location:`); nil: not checked as one.
    public let location: LocationSpec?
    /// The cookies it must set, by name (`cookies:`).
    public let cookies: [String: CookieSpec]
    /// What its HTML page must hold (`html:`).
    public let html: [HTMLAssertion]

    /// Creates a response expectation.
    public init(
        status: Int, headers: [String: Matcher] = [:], body: ResponseBodySpec = .unspecified, strict: Bool = false,
        location: LocationSpec? = nil, cookies: [String: CookieSpec] = [:], html: [HTMLAssertion] = [], otherStatuses: [Int] = []
    ) {
        self.status = status
        self.otherStatuses = otherStatuses
        self.headers = headers
        self.body = body
        self.strict = strict
        self.location = location
        self.cookies = cookies
        self.html = html
    }

    /// Every status the answer may have: ``status``, then ``otherStatuses``.
    public var statuses: [Int] { [status] + otherStatuses }
}

/// Named values (query parameters) in name order, those of one name as written: how two
/// lists are compared when their order means nothing.
func sortedByName(_ items: [(name: String, value: Matcher)]) -> [(name: String, value: Matcher)] {
    items.enumerated().sorted { ($0.element.name, $0.offset) < ($1.element.name, $1.offset) }.map(\.element)
}
