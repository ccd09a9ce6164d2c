import ContractKit
import Foundation

/// A message the stub sent when it answered an interaction that `delivers:` one (a password
/// reset's token for the app's mailer), built from the contract as the stub builds answers:
/// literals as written, matchers from their `example` or a generated value, `{{saved}}`
/// values from the stub's state.
///
/// ```swift
/// let stub = try ContractStub(directory: "contracts")
/// _ = try await api.requestPasswordReset(username: "alice")    // through stub.urlSession
/// let delivery = try #require(stub.delivered.last)
/// let token = delivery.json?["token"]                           // what the mailer would get
/// ```
public struct StubDelivery: Sendable, CustomStringConvertible {
    /// HTTP method (`POST`).
    public let method: String
    /// The path on the receiver (`/deliveries`).
    public let path: String
    /// Headers in order (a JSON body's `content-type` included).
    public let headers: [(name: String, value: String)]
    /// The body.
    public let body: Data
    /// The interaction that sent it.
    public let interaction: String

    /// Creates a delivery.
    public init(method: String, path: String, headers: [(name: String, value: String)], body: Data, interaction: String) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.interaction = interaction
    }

    /// The body as JSON, nil when it is not JSON.
    ///
    /// ```swift
    /// if case .string(let token)? = delivery.json?["token"] { … }
    /// ```
    public var json: JSONValue? {
        body.isEmpty ? nil : try? JSONValue(parsing: body)
    }

    /// The first value of header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        firstHeader(name, in: headers)
    }

    /// The delivery as the HTTP request a receiver gets, for checks against a contract's `Delivery`.
    public var request: ContractRequest {
        ContractRequest(method: method, target: path, headers: headers, body: body.isEmpty ? nil : body)
    }

    /// `POST /deliveries {"kind":…}`.
    public var description: String {
        "\(method) \(path)" + (body.isEmpty ? "" : " " + String(decoding: body.prefix(200), as: UTF8.self))
    }
}
