import ContractStub
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Only ContractStub is imported here, as in an app's test target: `TOTP` must come with it.

/// A second-factor client as an app writes one (`Examples/LoginClient`'s style): URLSession
/// and Codable, nothing of the contracts.
struct SecondFactorClient {
    struct Enrolment: Decodable {
        let secret: String
    }

    let baseURL: URL
    let session: URLSession

    func enrol() async throws -> Enrolment {
        let (data, _) = try await session.data(for: request("mfa/totp", body: [:]))
        return try JSONDecoder().decode(Enrolment.self, from: data)
    }

    /// The status `POST /login/mfa` answers `code` with.
    func logIn(code: String) async throws -> Int {
        let (_, response) = try await session.data(for: request("login/mfa", body: ["code": code]))
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    private func request(_ path: String, body: [String: String]) throws -> URLRequest {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.httpMethod = "POST"
        if !body.isEmpty {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONEncoder().encode(body)
        }
        return request
    }
}

@Suite struct TOTPClientTests {
    @Test func aClientTestComputesTheCodeTheStubTakes() async throws {
        let stub = try ContractStub(contracts: [try loadContract(TOTPStubTests.contract)])
        let client = SecondFactorClient(baseURL: try #require(URL(string: "https://auth.example")), session: stub.urlSession)

        let enrolment = try await client.enrol()
        let code = try TOTP(secret: enrolment.secret).code(at: Date())
        #expect(try await client.logIn(code: code) == 200)
        // The stub refuses the same code again, as authd does.
        #expect(try await client.logIn(code: code) == 401)
        #expect(stub.unmatched.isEmpty)
    }
}
