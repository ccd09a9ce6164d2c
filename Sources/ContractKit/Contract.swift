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
    /// Variables captured from the response body for later interactions.
    public let save: [String: JSONPath]

    /// Creates an interaction.
    public init(name: String, location: SourceLocation, given: [ProviderStateUse], request: RequestSpec, response: ResponseSpec, save: [String: JSONPath]) {
        self.name = name
        self.location = location
        self.given = given
        self.request = request
        self.response = response
        self.save = save
    }
}

/// A provider state an interaction needs, with its parameters.
public struct ProviderStateUse: Sendable, Equatable {
    /// The state's name, as in `contract.yaml`.
    public let state: String
    /// Parameters substituted into its set-up.
    public let params: [String: JSONValue]

    /// Creates a use of a state.
    public init(state: String, params: [String: JSONValue]) {
        self.state = state
        self.params = params
    }
}

/// A request body as written.
public enum RequestBody: Sendable, Equatable {
    /// No body.
    case none
    /// JSON, with `{{var}}` placeholders in its strings.
    case json(JSONValue)
    /// Raw text (may be malformed JSON on purpose).
    case text(Template)
}

/// The request of an interaction; every text may hold `{{var}}` placeholders.
public struct RequestSpec: Sendable, Equatable {
    /// HTTP method, upper case.
    public let method: String
    /// Path, starting with `/`.
    public let path: Template
    /// Query parameters, in order.
    public let query: [(name: String, value: Template)]
    /// Headers, in order.
    public let headers: [(name: String, value: Template)]
    /// The body.
    public let body: RequestBody

    /// Creates a request.
    public init(method: String, path: Template, query: [(name: String, value: Template)] = [], headers: [(name: String, value: Template)] = [], body: RequestBody = .none) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.method == rhs.method && lhs.path == rhs.path && lhs.body == rhs.body
            && lhs.query.map(\.name) == rhs.query.map(\.name) && lhs.query.map(\.value) == rhs.query.map(\.value)
            && lhs.headers.map(\.name) == rhs.headers.map(\.name) && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }

    /// Every variable the request uses.
    public var variables: [String] {
        var names = path.variables + query.flatMap(\.value.variables) + headers.flatMap(\.value.variables)
        switch body {
        case .none: break
        case .json(let value): names += value.templateVariables
        case .text(let template): names += template.variables
        }
        return names
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
}

/// The response an interaction must get.
public struct ResponseSpec: Sendable, Equatable {
    /// The status code.
    public let status: Int
    /// Header matchers by lower-cased name (names match case-insensitively).
    public let headers: [String: Matcher]
    /// The body.
    public let body: ResponseBodySpec
    /// Forbid keys the contract does not list, at every level.
    public let strict: Bool

    /// Creates a response expectation.
    public init(status: Int, headers: [String: Matcher] = [:], body: ResponseBodySpec = .unspecified, strict: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.strict = strict
    }
}
