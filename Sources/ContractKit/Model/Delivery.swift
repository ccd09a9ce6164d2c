/// A message the provider must send elsewhere when it answers an interaction (a webhook:
/// a password reset posting its token to the app's mailer), written under `delivers:`.
///
/// ```yaml
/// delivers:
///   - method: POST                        # the default
///     path: /deliveries                   # on the receiver `contract verify` runs ({{delivery_url}})
///     headers: { Authd-Signature: { match: regex, pattern: "t=[0-9]+,v1=[0-9a-f]{64}", example: "t=1,v1=00" } }
///     json: { kind: password_reset, token: { match: string, min_length: 32 }, username: alice }
///     within: 5                           # seconds, the default
///     save: { reset: $.token }            # from the delivery's JSON body
/// ```
///
/// `contract verify` waits up to ``within`` seconds after the request for a delivery that
/// matches; the stub sends one built from the matchers, as it builds its answers.
public struct Delivery: Sendable, Equatable {
    /// HTTP method, upper case.
    public let method: String
    /// The path on the receiver, starting with `/` (may hold `{{var}}` placeholders).
    public let path: Template
    /// Header matchers by lower-cased name (names match case-insensitively).
    public let headers: [String: Matcher]
    /// The JSON body: literals, matchers and `{{var}}` templates, matched leniently (extra
    /// keys allowed); nil when the contract says nothing about the body.
    public let body: Matcher?
    /// How long the delivery may take to arrive after the request was sent, seconds.
    public let within: Double
    /// Variables captured from the delivery's JSON body, for later interactions.
    public let save: [String: JSONPath]
    /// Where it is written.
    public let location: SourceLocation

    /// The default of ``within``: 5 seconds.
    public static let defaultWithin: Double = 5

    /// Creates a delivery expectation.
    public init(
        method: String = "POST", path: Template, headers: [String: Matcher] = [:], body: Matcher? = nil,
        within: Double = Delivery.defaultWithin, save: [String: JSONPath] = [:], location: SourceLocation
    ) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.within = within
        self.save = save
        self.location = location
    }

    /// `POST /deliveries`, for reports.
    public var summary: String { "\(method) \(path.text)" }

    /// Every variable its path, headers and body use.
    public var variables: [String] {
        path.variables + headers.values.flatMap(\.templateVariables) + (body?.templateVariables ?? [])
    }
}
