/// `contract.yaml`: how to build, start and reach the provider, and how to set up each
/// provider state. Texts may use `{{port}}` (a free port the verifier picks), `{{scratch}}`
/// (a fresh folder for this run, removed afterwards), `{{bin.NAME}}` (the path of a
/// SwiftPM product listed in `swift_products`, built first), `{{delivery_url}}` (the
/// receiver of the contracts' `delivers:`), `{{env.NAME}}` (an environment variable;
/// `{{env.NAME:-default}}` when it may be unset) and, in states, the state's parameters.
///
/// ```yaml
/// provider:
///   swift_products: [authd]
///   command: "{{bin.authd}} serve --port {{port}} --data-dir {{env.AUTHD_DATA:-{{scratch}}/db}}"
///   ready: /health/ready
///   base_url: http://127.0.0.1:{{port}}
/// states:
///   user exists:
///     command: "{{bin.authd}} user add {{username}} --password-stdin --data-dir {{env.AUTHD_DATA:-{{scratch}}/db}}"
///     stdin: "{{password}}"
/// clock:
///   url: /test/clock
/// openapi:
///   also_answers:
///     429: [POST /users]    # shown elsewhere; this run's raised limits keep it from showing here
/// ```
public struct ProviderConfiguration: Sendable, Equatable {
    /// A shell command that starts the provider, if the verifier should start it.
    public let command: Template?
    /// A path that answers 2xx once the provider is ready.
    public let ready: String
    /// The provider's base URL.
    public let baseURL: Template?
    /// Seconds to wait for readiness.
    public let startupTimeout: Int
    /// How to set up each state, by name.
    public let states: [String: StateSetup]
    /// SwiftPM products to build (`swift build --product NAME`) before anything runs;
    /// each is `{{bin.NAME}}` in the texts.
    public let swiftProducts: [String]
    /// The folder of the Swift package that holds ``swiftProducts``, relative to the
    /// contracts folder; nil: the nearest folder at or above it with a `Package.swift`.
    public let swiftPackage: String?
    /// How the provider's clock is moved forward for interactions with `after:`; nil when
    /// it cannot be.
    public let clock: ClockHook?
    /// Statuses routes also answer that no interaction of theirs can show under this file's
    /// provider (`openapi: also_answers:`, e.g. a limit raised for replays): `contract export
    /// openapi` documents each with the responses of that status the contracts show elsewhere.
    public let alsoAnswers: [AlsoAnswered]

    /// A status a route also answers (`429: [POST /users]`).
    public struct AlsoAnswered: Sendable, Equatable {
        /// The status.
        public let status: Int
        /// The method, upper case.
        public let method: String
        /// The path as the OpenAPI document writes it (`/sessions/{id}`).
        public let path: String

        /// `status` for `method` on `path`.
        public init(status: Int, method: String, path: String) {
            self.status = status
            self.method = method
            self.path = path
        }
    }

    /// Creates a configuration.
    public init(
        command: Template?, ready: String, baseURL: Template?, startupTimeout: Int, states: [String: StateSetup],
        swiftProducts: [String] = [], swiftPackage: String? = nil, clock: ClockHook? = nil, alsoAnswers: [AlsoAnswered] = []
    ) {
        self.clock = clock
        self.alsoAnswers = alsoAnswers
        self.command = command
        self.ready = ready
        self.baseURL = baseURL
        self.startupTimeout = startupTimeout
        self.states = states
        self.swiftProducts = swiftProducts
        self.swiftPackage = swiftPackage
    }
}

/// How one provider state is set up.
public enum StateSetup: Sendable, Equatable {
    /// A shell command; parameters are substituted shell-quoted; `stdin` is piped in.
    case command(Template, stdin: Template?)
    /// A URL the verifier POSTs `{"state": …, "params": {…}}` to.
    case url(Template)
}

/// How the provider's clock moves forward (`clock:` in `contract.yaml`), for interactions
/// that happen later (`after: 901s`).
///
/// ```yaml
/// clock:
///   url: /test/clock          # POST {"advance": 901} (a path is relative to the base URL)
/// # or
/// clock:
///   command: "mytool clock advance {{seconds}}"
/// ```
public enum ClockHook: Sendable, Equatable {
    /// A shell command; `{{seconds}}` is the step (other texts as in states).
    case command(Template)
    /// A URL the verifier POSTs `{"advance": seconds}` to; a path is relative to the base URL.
    case url(Template)
}

/// Everything loaded from a contracts directory.
///
/// ```swift
/// let suite = ContractLoader.load(directory: "contracts")
/// guard suite.diagnostics.isEmpty else { suite.diagnostics.forEach { print($0) }; exit(2) }
/// ```
public struct ContractSuite: Sendable {
    /// The directory.
    public let directory: String
    /// `contract.yaml`, when present.
    public let provider: ProviderConfiguration?
    /// The contract files, by file name.
    public let contracts: [Contract]
    /// Every problem found, sorted by file and line; empty when all is well.
    public let diagnostics: [ContractDiagnostic]
}
