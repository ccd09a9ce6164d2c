import ContractKit
import ContractRecording
import Foundation
import Testing

@Suite struct ContractRecorderTests {
    func exchange(
        _ method: String, _ target: String, headers: [(name: String, value: String)] = [], body: String? = nil, status: Int = 200,
        response: String = ""
    ) -> RecordedExchange {
        RecordedExchange(
            request: ContractRequest(method: method, target: target, headers: headers, body: body.map { Data($0.utf8) }),
            response: ContractResponse(
                status: status, headers: [("Content-Type", "application/json"), ("Date", "Mon, 23 Nov 2026 00:00:00 GMT")],
                body: Data(response.utf8))
        )
    }

    @Test func anAuthorizationTheProviderDidNotIssueIsASecretAndMadeUpIdsAreParameters() throws {
        let id = "0b6c5a3e-2f1d-4a49-9c55-0f8e3c2d1a7b"
        let output = ContractRecorder.record([
            exchange(
                "GET", "/items/\(id)?verbose=true", headers: [("Authorization", "Bearer abc123def456ghi789"), ("User-Agent", "curl")],
                response: #"{"id": "\#(id)", "count": 2}"#),
            exchange("DELETE", "/items/\(id)", headers: [("Authorization", "Bearer abc123def456ghi789")], status: 204),
        ])
        #expect(output.secrets.map(\.variable) == ["ITEMS_AUTHORIZATION"])
        #expect(output.secrets.map(\.usedFor) == ["GET /items/{id} header Authorization"])
        let file = try #require(output.files.first)
        #expect(output.files.count == 1)
        #expect(file.name == "items.yaml")
        #expect(file.yaml.contains(#"Authorization: "Bearer {{env.ITEMS_AUTHORIZATION}}""#))
        #expect(!file.yaml.contains("abc123def456ghi789"))
        #expect(!file.yaml.contains("User-Agent"))
        #expect(!file.yaml.contains("Date"))
        // An id the client sent: a parameter with its example; the answer's copy is saved and sent back.
        #expect(file.yaml.contains(#"id: {match: uuid, example: "\#(id)"}"#))
        #expect(file.yaml.contains(#"id: "$.id""#))
        #expect(file.yaml.contains(#"path: "/items/{{id}}""#))
        let (contract, diagnostics) = ContractLoader.parse(yaml: file.yaml, file: file.name)
        #expect(diagnostics == [], "\(file.yaml)")
        #expect(contract?.interactions.map(\.name) == ["GET /items/{id} → 200", "DELETE /items/{{id}} → 204"])
    }

    @Test func textThatWouldReadAsAnotherTypeIsQuoted() throws {
        let output = ContractRecorder.record([
            exchange(
                "POST", "/x", headers: [("Content-Type", "application/json")], body: #"{"a": "true", "b": "12", "c": "", "d": "x: y"}"#,
                response: "{}")
        ])
        let file = try #require(output.files.first)
        let (contract, diagnostics) = ContractLoader.parse(yaml: file.yaml, file: file.name)
        #expect(diagnostics == [])
        guard case .json(let body)? = contract?.interactions.first?.request.body else {
            Issue.record("no JSON body in \(file.yaml)")
            return
        }
        #expect(body == Matcher.literal(.object(["a": .string("true"), "b": .string("12"), "c": .string(""), "d": .string("x: y")])))
    }

    @Test func anIdTheClientMadeUpIsSavedFromTheRequest() throws {
        let id = "9e4f1a22-8a3b-4c1d-9e0f-1a2b3c4d5e6f"
        let output = ContractRecorder.record([
            exchange("PUT", "/docs/\(id)", headers: [("Content-Type", "text/plain")], body: "hello", status: 204),
            exchange("GET", "/docs/\(id)", response: #"{"text": "hello"}"#),
        ])
        let yaml = try #require(output.files.first).yaml
        #expect(yaml.contains("id: request.path.id"), "\(yaml)")
        #expect(yaml.contains(#"path: "/docs/{{id}}""#))
        #expect(yaml.contains("body: hello"))
    }
}
