import ContractKit
import ContractStub
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct URLProtocolTests {
    func loginRequest(password: String) throws -> URLRequest {
        var request = URLRequest(url: try #require(URL(string: "https://auth.example/login")))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: ["username": "alice", "password": password])
        return request
    }

    @Test func urlSessionRequestsAreAnsweredInProcess() async throws {
        let stub = try ContractStub(contracts: [try loadContract(ContractStubTests.toy)])
        let session = stub.urlSession
        let (data, response) = try await session.data(for: try loginRequest(password: "secret"))
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(http.value(forHTTPHeaderField: "Cache-Control") == "no-store")
        let body = try JSONValue(parsing: data)
        #expect(body["token_type"] == .string("Bearer"))

        guard case .string(let token)? = body["access_token"] else {
            Issue.record("no token")
            return
        }
        var me = URLRequest(url: try #require(URL(string: "https://auth.example/me")))
        me.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (_, meResponse) = try await session.data(for: me)
        #expect((meResponse as? HTTPURLResponse)?.statusCode == 200)

        // The binding header never reaches the stub's recordings.
        #expect(stub.requests.count == 2)
        #expect(stub.requests.allSatisfy { !$0.headers.contains { $0.name.lowercased() == "x-contract-stub" } })
        #expect(stub.requests[0].body.flatMap { try? JSONValue(parsing: $0) }?["password"] == .string("secret"))
    }

    @Test func anExampleNamesTheBaseURLTheRequestWasSentTo() async throws {
        let contract = try loadContract(
            """
            name: Discovery
            interactions:
              - name: the endpoints are the issuer's
                request: { method: GET, path: /.well-known/openid-configuration }
                response:
                  status: 200
                  json:
                    token_endpoint: { match: regex, pattern: "https?://.+/oauth/token", example: "{{request.base_url}}/oauth/token" }
            """)
        let stub = try ContractStub(contracts: [contract])
        for base in ["https://auth.example", "http://127.0.0.1:8765"] {
            let (data, _) = try await stub.urlSession.data(from: try #require(URL(string: "\(base)/.well-known/openid-configuration")))
            #expect(try JSONValue(parsing: data)["token_endpoint"] == .string("\(base)/oauth/token"))
        }
        // The example is checked with a base URL in its place.
        let (_, diagnostics) = ContractLoader.parse(
            yaml: """
                name: T
                interactions:
                  - name: a
                    request: { method: GET, path: / }
                    response: { status: 200, json: { url: { match: regex, pattern: "https://.+", example: "{{request.base_url}}/x" } } }
                """, file: "t.yaml")
        #expect(diagnostics.first?.message.hasPrefix("example does not match its matcher") == true, "\(diagnostics)")
    }

    @Test func unmatchedRequestsReach501AndAreRecorded() async throws {
        let stub = try ContractStub(contracts: [try loadContract(ContractStubTests.toy)])
        let (data, response) = try await stub.urlSession.data(for: try loginRequest(password: "nope"))
        #expect((response as? HTTPURLResponse)?.statusCode == 501)
        #expect(try JSONValue(parsing: data)["error"] == .string("not_stubbed"))
        #expect(stub.unmatched.count == 1)
    }

    @Test func parallelStubsNeverShareRequests() async throws {
        let first = try ContractStub(contracts: [try loadContract(ContractStubTests.toy)])
        let second = try ContractStub(contracts: [try loadContract(ContractStubTests.toy)])
        let firstSession = first.urlSession
        let secondSession = second.urlSession
        let good = try loginRequest(password: "secret")
        let bad = try loginRequest(password: "wrong")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask {
                    let (session, request) = index.isMultiple(of: 2) ? (firstSession, good) : (secondSession, bad)
                    _ = try await session.data(for: request)
                }
            }
            try await group.waitForAll()
        }
        #expect(first.exchanges.count == 10)
        #expect(second.exchanges.count == 10)
        #expect(first.exchanges.allSatisfy { $0.response.status == 200 })
        #expect(second.exchanges.allSatisfy { $0.response.status == 401 })
    }
}
