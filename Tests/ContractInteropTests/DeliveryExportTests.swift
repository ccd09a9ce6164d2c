import ContractInterop
import ContractKit
import Foundation
import Testing

/// What the exports make of `delivers:`: OpenAPI webhooks, and a note per delivery Pact drops.
@Suite struct DeliveryExportTests {
    static let reset = """
        name: Reset
        interactions:
          - name: a reset is requested
            request: { method: POST, path: /password/reset, json: { username: alice } }
            response: { status: 202 }
            delivers:
              - path: /deliveries
                headers: { Authd-Signature: { match: regex, pattern: "t=[0-9]+,v1=[0-9a-f]{64}", example: "t=1,v1=0000000000000000000000000000000000000000000000000000000000000000" } }
                json: { kind: password_reset, token: { match: string, min_length: 32 }, username: alice }
                save: { reset: $.token }
          - name: the delivered token resets the password
            request: { method: POST, path: /password/reset/confirm, json: { token: "{{reset}}", new_password: a new passphrase } }
            response: { status: 204 }
        """

    func contract() throws -> Contract {
        let (contract, diagnostics) = ContractLoader.parse(yaml: Self.reset, file: "reset.yaml")
        #expect(diagnostics == [])
        return try #require(contract)
    }

    @Test func openAPIDescribesEachKindOfDeliveryAsAWebhook() throws {
        let document = OpenAPIExporter(title: "authd", version: "1").document(for: [try contract()])
        let post = try #require(document["webhooks"]?["password_reset"]?["post"])
        let schema = try #require(post["requestBody"]?["content"]?["application/json"]?["schema"])
        #expect(schema["properties"]?["kind"]?["const"] == "password_reset")
        #expect(schema["properties"]?["token"]?["minLength"] == .integer(32))
        guard case .array(let parameters)? = post["parameters"], case .string(let description)? = post["description"] else {
            Issue.record("no parameters or description in \(post)")
            return
        }
        #expect(parameters.first?["name"] == "Authd-Signature")
        #expect(parameters.first?["in"] == "header")
        #expect(description.contains("a reset is requested (POST /password/reset)"))
        // The token carried back has the schema of the delivery's matcher.
        let confirm = document["paths"]?["/password/reset/confirm"]?["post"]?["requestBody"]?["content"]?["application/json"]?["schema"]
        #expect(confirm?["properties"]?["token"]?["minLength"] == .integer(32))
        // No delivers, no webhooks.
        let plain = OpenAPIExporter(title: "t", version: "1").document(for: [])
        #expect(plain["webhooks"] == nil)
    }

    @Test func pactDropsADeliveryWithANote() throws {
        let export = PactExporter(consumer: "app", provider: "authd").export([try contract()])
        let notes = export.notes.filter { $0.message.hasPrefix("delivers ") }
        #expect(
            notes == [
                PactNote(
                    file: "reset.yaml", interaction: "a reset is requested",
                    message:
                        "delivers POST /deliveries dropped: a Pact HTTP interaction cannot carry a delivery to another receiver (contract verify still checks it)"
                )
            ]
        )
        #expect(!export.document.description.contains("/deliveries"))
    }
}
