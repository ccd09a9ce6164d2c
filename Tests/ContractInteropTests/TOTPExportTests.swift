import ContractInterop
import ContractKit
import Foundation
import Testing

/// What the exports make of a `totp` request matcher: a pattern of its digits, and for Pact a
/// note that no one can compute the code.
@Suite struct TOTPExportTests {
    static let yaml = """
        name: TOTP
        interactions:
          - name: a key is enrolled
            request: { method: POST, path: /mfa/totp }
            response: { status: 200, json: { secret: { match: regex, pattern: "[A-Z2-7]+", example: JBSWY3DPEHPK3PXP } } }
            save: { totp_secret: $.secret }
          - name: a code logs in
            request:
              method: POST
              path: /login/mfa
              headers: { X-OTP: { match: totp, secret: "{{totp_secret}}", digits: 8 } }
              json: { code: { match: totp, secret: "{{totp_secret}}" } }
            response: { status: 200 }
            save: { used: request.json.code }
          - name: the same code again is refused
            request: { method: POST, path: /login/mfa, headers: { X-OTP: "12345678" }, json: { code: "{{used}}" } }
            response: { status: 401, json: { error: invalid_code } }
        """

    func contract() throws -> Contract {
        let (contract, diagnostics) = ContractLoader.parse(yaml: Self.yaml, file: "totp.yaml")
        #expect(diagnostics == [])
        return try #require(contract)
    }

    @Test func openAPIGivesAPatternOfTheDigits() throws {
        let document = OpenAPIExporter(title: "t", version: "1").document(for: [try contract()])
        let operation = try #require(document["paths"]?["/login/mfa"]?["post"])
        let code = operation["requestBody"]?["content"]?["application/json"]?["schema"]?["properties"]?["code"]
        #expect(code?["type"] == "string")
        #expect(code?["pattern"] == "^[0-9]{6}$")
        #expect(code?["examples"] == nil)
        guard case .array(let parameters)? = operation["parameters"] else {
            Issue.record("no parameters in \(operation)")
            return
        }
        let header = parameters.first { $0["name"] == "X-OTP" }
        #expect(header?["schema"]?["pattern"] == "^[0-9]{8}$")
    }

    @Test func pactGetsARegexAnExampleAndANote() throws {
        let export = PactExporter(consumer: "app", provider: "authd").export([try contract()])
        guard case .array(let interactions)? = export.document["interactions"] else {
            Issue.record("no interactions")
            return
        }
        let request = try #require(interactions[1]["request"])
        #expect(request["body"]?["code"] == "123456")
        #expect(request["headers"]?["X-OTP"] == "12345678")
        #expect(request["matchingRules"]?["body"]?["$.code"]?["matchers"] == [["match": "regex", "regex": #"\A(?:[0-9]{6})\z"#]])
        #expect(request["matchingRules"]?["header"]?["X-OTP"]?["matchers"] == [["match": "regex", "regex": #"\A(?:[0-9]{8})\z"#]])
        let notes = export.notes.filter { $0.interaction == "a code logs in" }.map(\.message)
        #expect(
            notes.contains(
                "request $.code is a TOTP code of {{totp_secret}}: Pact cannot compute one, so the verifier sends the example 123456, which a provider refuses (contract verify sends a valid code)"
            ),
            "\(notes)"
        )
    }
}
