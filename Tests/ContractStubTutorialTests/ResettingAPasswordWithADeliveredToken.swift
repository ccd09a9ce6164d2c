import ContractStub
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct ResettingAPasswordWithADeliveredToken {
    let stub: ContractStub

    init() throws {
        stub = try ContractStub(directory: contractsFolder)
    }

    func post(_ path: String, _ json: [String: String]) async throws -> Int {
        var request = URLRequest(url: try #require(URL(string: "https://auth.example\(path)")))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: json)
        let (_, response) = try await stub.urlSession.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    @Test func theDeliveredTokenSetsANewPassword() async throws {
        #expect(
            try await post("/users", ["username": "pat", "password": "correct horse battery staple", "email": "pat@example.com"]) == 201)
        #expect(try await post("/password/reset", ["email": "pat@example.com"]) == 202)

        // What authd would post to the app's mailer.
        let message = try #require(await stub.deliveries.first { $0.json?["kind"] == "password_reset" })
        guard case .string(let token)? = message.json?["token"] else {
            Issue.record("the reset message has no token")
            return
        }

        #expect(try await post("/password/reset/confirm", ["token": token, "new_password": "a whole new passphrase"]) == 204)
        #expect(try await post("/password/reset/confirm", ["token": token, "new_password": "yet another passphrase"]) == 401)
    }
}
