/// `contract.yaml`: how to start and reach the provider, and how to set up each provider
/// state. Texts may use `{{port}}` (a free port the verifier picks) and, in states, the
/// state's parameters.
///
/// ```yaml
/// provider:
///   command: authd serve --port {{port}} --database-url {{env.DATABASE_URL}}
///   ready: /health/ready
///   base_url: http://127.0.0.1:{{port}}
/// states:
///   user exists:
///     command: authd user add {{username}} --password-stdin
///     stdin: "{{password}}"
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

    /// Creates a configuration.
    public init(command: Template?, ready: String, baseURL: Template?, startupTimeout: Int, states: [String: StateSetup]) {
        self.command = command
        self.ready = ready
        self.baseURL = baseURL
        self.startupTimeout = startupTimeout
        self.states = states
    }
}

/// How one provider state is set up.
public enum StateSetup: Sendable, Equatable {
    /// A shell command; parameters are substituted shell-quoted; `stdin` is piped in.
    case command(Template, stdin: Template?)
    /// A URL the verifier POSTs `{"state": …, "params": {…}}` to.
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
