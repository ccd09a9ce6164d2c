import ContractInterop
import ContractKit
import Foundation
import Testing

/// What the exports make of `webauthn_…` request matchers: object schemas of WebAuthn's JSON
/// for OpenAPI, a type rule, an example of the shape and a note for Pact.
@Suite struct WebAuthnExportTests {
    static let yaml = """
        name: Passkeys
        interactions:
          - name: registration options
            request: { method: POST, path: /webauthn/register/options, json: {} }
            response: { status: 200, json: { challenge: { match: string, min_length: 43 } } }
            save: { creation: $ }
          - name: a passkey is registered
            request:
              method: POST
              path: /webauthn/register
              json: { credential: { match: webauthn_registration, options: "{{creation}}", origin: "https://example.com", authenticator: mia-phone } }
            response: { status: 201 }
          - name: login options
            request: { method: POST, path: /webauthn/login/options, json: {} }
            response: { status: 200, json: { challenge: { match: string, min_length: 43 } } }
            save: { request: $ }
          - name: the passkey signs in
            request:
              method: POST
              path: /webauthn/login
              json: { credential: { match: webauthn_assertion, options: "{{request}}", origin: "https://example.com", authenticator: mia-phone } }
            response: { status: 200 }
            save: { used: request.json.credential }
          - name: the same assertion again is refused
            request: { method: POST, path: /webauthn/login, json: { credential: "{{used}}" } }
            response: { status: 401, json: { error: invalid_credentials } }
        """

    func contract() throws -> Contract {
        let (contract, diagnostics) = ContractLoader.parse(yaml: Self.yaml, file: "passkeys.yaml")
        #expect(diagnostics == [])
        return try #require(contract)
    }

    @Test func openAPIDescribesTheCredentialsAsObjects() throws {
        let document = OpenAPIExporter(title: "t", version: "1").document(for: [try contract()])
        let registration = document["paths"]?["/webauthn/register"]?["post"]?["requestBody"]?["content"]?["application/json"]?["schema"]?[
            "properties"]?["credential"]
        #expect(registration?["type"] == "object")
        #expect(registration?["required"] == ["id", "rawId", "type", "response"])
        #expect(registration?["properties"]?["response"]?["required"] == ["clientDataJSON", "attestationObject"])
        #expect(registration?["properties"]?["rawId"]?["pattern"] == "^[A-Za-z0-9_-]*={0,2}$")
        guard case .string(let description)? = registration?["description"] else {
            Issue.record("no description in \(String(describing: registration))")
            return
        }
        #expect(description.hasPrefix("A WebAuthn registration (RegistrationResponseJSON, WebAuthn §5.1.8)"))
        #expect(registration?["examples"] == nil)

        let login = document["paths"]?["/webauthn/login"]?["post"]?["requestBody"]?["content"]?["application/json"]?["schema"]
        // The login and the replay of what it sent: both an assertion's schema.
        let assertion = login?["properties"]?["credential"]
        #expect(assertion?["properties"]?["response"]?["required"] == ["clientDataJSON", "authenticatorData", "signature"])
        #expect(assertion?["properties"]?["type"]?["const"] == "public-key")
    }

    @Test func pactGetsATypeRuleAnExampleOfTheShapeAndANote() throws {
        let contract = try contract()
        let export = PactExporter(consumer: "app", provider: "authd").export([contract])
        guard case .array(let interactions)? = export.document["interactions"] else {
            Issue.record("no interactions")
            return
        }
        let registration = try #require(interactions[1]["request"])
        #expect(registration["matchingRules"]?["body"]?["$.credential"]?["matchers"] == [["match": "type"]])
        guard case .json(let body) = contract.interactions[1].request.body, case .object(let members) = body.kind,
            let spec = members["credential"]?.kind.as(WebAuthnSpec.self)
        else {
            Issue.record("no webauthn matcher")
            return
        }
        #expect(registration["body"]?["credential"] == spec.exampleCredential)
        let again = PactExporter(consumer: "app", provider: "authd").export([contract])
        #expect(again.document == export.document, "the same contracts give the same file")
        let notes = export.notes.filter { $0.interaction == "the passkey signs in" }.map(\.message)
        #expect(
            notes.contains(
                "request $.credential is a WebAuthn assertion by mia-phone at https://example.com for {{request}}: Pact cannot sign one, so the verifier sends an example of its shape, which a provider refuses (contract verify signs a fresh one)"
            ),
            "\(notes)"
        )
    }
}
