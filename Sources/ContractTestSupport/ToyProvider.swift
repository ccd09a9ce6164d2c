import ContractKit
import Foundation
import Hummingbird
import NIOCore

/// A small provider for the contract tests: a login that issues a token and an endpoint
/// that wants it back, served on a free port; ``contract`` describes it.
///
/// ```swift
/// let report = try await ToyProvider.withRunning { url in
///     await ContractVerifier(live: HTTPTransport(baseURL: url), states: nil).verify([try loadContract(ToyProvider.contract)])
/// }
/// ```
public enum ToyProvider {
    /// The toy's contract: a login that saves the token, `/me` with it, a wrong password.
    public static let contract = """
        name: Toy
        interactions:
          - name: login gives a token
            request:
              method: POST
              path: /login
              json: { username: alice, password: secret }
            response:
              status: 200
              headers: { cache-control: no-store }
              json:
                access_token: { match: string, min_length: 3 }
                token_type: Bearer
                expires_in: { match: integer, min: 1 }
            save: { token: $.access_token }
          - name: the token opens /me
            request:
              method: GET
              path: /me
              headers: { Authorization: "Bearer {{token}}" }
            response:
              status: 200
              json: { username: alice }
          - name: a wrong password is refused
            request:
              method: POST
              path: /login
              json: { username: alice, password: nope }
            response:
              status: 401
              json: { error: invalid_credentials }
        """

    /// Serves the toy until `body` returns; `tokenType` changes what its login says. Its
    /// password reset (``resetContract(username:within:)``) delivers `delivery` to
    /// `deliveryURL`, when given; its TOTP second factor is ``totpContract``'s, its passkeys
    /// ``webAuthnContract``'s, its clock and sessions ``clockContract``'s.
    public static func withRunning<T: Sendable>(
        tokenType: String = "Bearer", deliveryURL: String? = nil, delivery: ResetDelivery = .correct,
        _ body: @Sendable (String) async throws -> T
    ) async throws -> T {
        let router = Router()
        addResetRoutes(to: router, deliveryURL: deliveryURL, delivery: delivery)
        addTOTPRoutes(to: router)
        addWebAuthnRoutes(to: router)
        addClockRoutes(to: router)
        addOAuthRoutes(to: router)
        addBrowserRoutes(to: router)
        router.post("/login") { request, _ -> Response in
            let data = try await request.body.collect(upTo: 1 << 16)
            let json = try JSONValue(parsing: Data(buffer: data))
            guard json["password"] == .string("secret") else {
                return Response(
                    status: .unauthorized, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: #"{"error":"invalid_credentials"}"#)))
            }
            return Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: #"{"access_token":"tok-123","token_type":"\#(tokenType)","expires_in":900}"#))
            )
        }
        router.get("/me") { request, _ -> Response in
            guard request.headers[.authorization] == "Bearer tok-123" else { return Response(status: .unauthorized) }
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: #"{"username":"alice"}"#)))
        }
        return try await EphemeralServer.withRunning(router, body)
    }
}

/// Parses one contract file's text, failing with its diagnostics when it does not load.
///
/// ```swift
/// let contract = try loadContract(ToyProvider.contract)
/// ```
public func loadContract(_ yaml: String, file: String = "toy.yaml") throws -> Contract {
    let (contract, diagnostics) = ContractLoader.parse(yaml: yaml, file: file)
    guard let contract, diagnostics.isEmpty else { throw ContractDiagnosticList(diagnostics: diagnostics) }
    return contract
}

/// The diagnostics of a contract that did not load.
public struct ContractDiagnosticList: Error, CustomStringConvertible {
    /// Every problem.
    public let diagnostics: [ContractDiagnostic]
    /// One per line.
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
