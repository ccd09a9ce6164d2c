import ContractStub
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct AnsweringErrorsLikeAuthd {
    let stub: ContractStub

    init() throws {
        stub = try ContractStub(directory: contractsFolder)
    }

    func logIn(_ username: String, _ password: String) async throws -> (status: Int, body: [String: Any]) {
        var request = URLRequest(url: try #require(URL(string: "https://auth.example/login")))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: ["username": username, "password": password])
        let (data, response) = try await stub.urlSession.data(for: request)
        let body = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, body)
    }

    @Test func aWrongPasswordIsInvalidCredentials() async throws {
        // The contract's wrong password: the stub answers the requests its contracts show.
        let (status, body) = try await logIn("alice", "wrong password")
        #expect(status == 401)
        #expect(body["error"] as? String == "invalid_credentials")
    }

    @Test func aRequestNoContractDescribesIsReported() async throws {
        var request = URLRequest(url: try #require(URL(string: "https://auth.example/no-such-route")))
        request.httpMethod = "POST"
        _ = try await stub.urlSession.data(for: request)
        #expect(stub.unmatched.count == 1)
    }
}
