import ContractStub
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The folder of authd's contracts: in an app, a copy of them (or a checkout of authd).
let contractsFolder = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("contracts").path

@Suite struct LoggingInThroughTheStub {
    let stub: ContractStub
    let session: URLSession

    init() throws {
        stub = try ContractStub(directory: contractsFolder)
        session = stub.urlSession
    }

    @Test func aRightPasswordGetsATokenPair() async throws {
        var request = URLRequest(url: try #require(URL(string: "https://auth.example/login")))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"username": "alice", "password": "correct horse battery staple"}"#.utf8)

        let (data, response) = try await session.data(for: request)

        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let body = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect((body["access_token"] as? String)?.split(separator: ".").count == 3)
        #expect(body["token_type"] as? String == "Bearer")
        #expect(stub.unmatched.isEmpty)
    }
}
