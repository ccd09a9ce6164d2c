import ContractKit
import ContractRecording
import Foundation
import Testing
import WebForms

/// `contract record` on form bodies and Basic credentials.
@Suite struct FormRecordingTests {
    @Test func aFormExchangeBecomesFormWithShapesSavesAndASecretPassword() throws {
        let token = "gho_16C7e42F292c6912E7710c838347Ae178B4a"
        let basic = BasicCredentials.header(username: "client-1", password: "s3cret-value")
        let output = ContractRecorder.record([
            RecordedExchange(
                request: ContractRequest(
                    method: "POST", target: "/oauth/token", headers: [("Content-Type", FormBody.contentType), ("Authorization", basic)],
                    body: Data("grant_type=client_credentials&scope=read+write".utf8)),
                response: ContractResponse(
                    status: 200, headers: [("Content-Type", FormBody.contentType)],
                    body: Data("access_token=\(token)&token_type=bearer".utf8))
            ),
            RecordedExchange(
                request: ContractRequest(
                    method: "POST", target: "/oauth/revoke", headers: [("Content-Type", FormBody.contentType)],
                    body: Data("token=\(token)".utf8)),
                response: ContractResponse(status: 200, headers: [], body: Data())
            ),
        ])
        let file = try #require(output.files.first)
        #expect(output.files.count == 1, "\(output.files.map(\.yaml))")
        #expect(!file.yaml.contains("s3cret-value") && !file.yaml.contains(basic))
        #expect(output.secrets.map(\.usedFor) == ["POST /oauth/token header Authorization password"])
        let (contract, diagnostics) = ContractLoader.parse(yaml: file.yaml, file: file.name)
        #expect(diagnostics == [], "\(file.yaml)")
        let first = try #require(contract?.interactions.first)
        guard case .form(let form) = first.request.body, case .form(let response) = first.response.body else {
            Issue.record("no forms in \(file.yaml)")
            return
        }
        #expect(form.names == ["grant_type", "scope"])
        #expect(form.field("scope") == Matcher(.literal(.string("read write"))))
        #expect(response.field("access_token")?.kind == .string(minLength: token.count, maxLength: nil))
        #expect(response.field("token_type") == Matcher(.literal(.string("bearer"))))
        let variable = try #require(output.secrets.first?.variable)
        #expect(
            first.request.headers.first { $0.name == "Authorization" }?.value
                == Matcher(.basicAuth(username: .literal("client-1"), password: .literal(.string("{{env.\(variable)}}")))))
        // The token handed out is saved from the form and sent back in the next one.
        #expect(first.save["access_token"] == .responseForm("access_token"))
        guard case .form(let revoke)? = contract?.interactions.last?.request.body else {
            Issue.record("no form in the revocation")
            return
        }
        #expect(revoke.field("token") == Matcher(.literal(.string("{{access_token}}"))))
    }
}
