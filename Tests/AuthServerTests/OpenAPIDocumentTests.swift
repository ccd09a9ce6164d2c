import AuthServer
import ContractInterop
import ContractKit
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// authd serves the OpenAPI document exported from its contracts, and it is current.
@Suite struct OpenAPIDocumentTests {
    static let contracts = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("contracts").path

    @Test func theServedDocumentIsTheExportOfTheContracts() async throws {
        let suite = ContractLoader.load(directory: Self.contracts)
        try #require(suite.diagnostics.isEmpty, "\(suite.diagnostics)")
        // What clients read: the schemas, without the contracts' interactions as written.
        var exporter = OpenAPIExporter(title: "authd", version: "1.0.0")
        exporter.carriesInteractions = false
        exporter.alsoAnswers = suite.provider?.alsoAnswers ?? []
        #expect(exporter.undocumentable(in: suite.contracts) == [])
        let exported = exporter.document(for: suite.contracts)

        try await ServerFixture().test { client in
            let response = try await client.execute(uri: "/openapi.json", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json; charset=utf-8")
            let served = try JSONValue(parsing: Data(buffer: response.body))
            let current = served == exported
            #expect(current, "contracts/ changed: run scripts/openapi to regenerate the document authd serves")
            guard case .object(let document) = served, case .object(let paths)? = document["paths"] else {
                Issue.record("the document has no paths")
                return
            }
            #expect(document["openapi"] == "3.1.0")
            #expect(!String(buffer: response.body).contains("x-contract-interactions"))
            #expect(
                Set(paths.keys).isSuperset(of: ["/login", "/token/refresh", "/logout", "/me", "/.well-known/jwks.json", "/health/ready"]))
        }
    }
}
