import ContractKit
import ContractStub
import ContractStubServer
import Foundation
import JOSE
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `after:` in the stub: an interaction that happens later answers only once the stub's
/// clock moved that far since it last answered in the file, and before an equal match then.
@Suite struct ClockStepStubTests {
    static let expiry = """
        name: Expiry
        interactions:
          - name: login
            request: { method: POST, path: /login, json: { username: gwen } }
            response:
              status: 200
              json:
                access_token: { match: jwt, claims: { exp: { match: integer } } }
            save: { access: $.access_token }
          - name: me
            request: { method: GET, path: /me, headers: { Authorization: "Bearer {{access}}" } }
            response: { status: 200, json: { username: gwen } }
          - name: me once the token expired
            after: 901s
            request: { method: GET, path: /me, headers: { Authorization: "Bearer {{access}}" } }
            response: { status: 401, json: { error: invalid_token } }
          - name: me again
            request: { method: GET, path: /me, headers: { Authorization: "Bearer {{access}}" } }
            response: { status: 200, json: { username: gwen } }
        """

    static func me(_ token: String) -> ContractRequest {
        ContractRequest(method: "GET", target: "/me", headers: [("Authorization", "Bearer \(token)")])
    }

    static func token(_ response: ContractResponse) throws -> String {
        guard case .string(let token)? = response.json?["access_token"] else { throw CocoaError(.coderReadCorrupt) }
        return token
    }

    @Test func theLaterInteractionAnswersOnlyOnceTheClockMovedThatFar() throws {
        let stub = try ContractStub(contracts: [loadContract(Self.expiry)])
        let token = try Self.token(stub.respond(to: post("/login", #"{"username":"gwen"}"#)))
        #expect(stub.respond(to: Self.me(token)).status == 200)
        // 900 seconds are not enough: the equal match without after: answers.
        stub.advanceClock(by: 900)
        #expect(stub.exchange(Self.me(token)).interaction == "me again")
        stub.advanceClock(by: 901)
        let expired = stub.exchange(Self.me(token))
        #expect(expired.interaction == "me once the token expired")
        #expect(expired.response.status == 401)
        // Measured from the answer before it: right after, time has not passed again.
        #expect(stub.respond(to: Self.me(token)).status == 200)
    }

    @Test func mintedTokensCarryTheStubsClock() throws {
        let start = Date(timeIntervalSince1970: 2_000_000_000)
        let stub = try ContractStub(contracts: [loadContract(Self.expiry)], now: { start })
        #expect(stub.now == start)
        stub.advanceClock(by: 3600)
        #expect(stub.now == start.addingTimeInterval(3600))
        let token = try Self.token(stub.respond(to: post("/login", #"{"username":"gwen"}"#)))
        let payload = try #require(JWTShape.payload(of: token))
        #expect(payload["iat"] == .integer(2_000_003_600))
        #expect(payload["exp"] == .integer(2_000_003_600 + 900))
        // reset() forgets the steps.
        stub.reset()
        #expect(stub.now == start)
    }

    @Test func aStepGoesForwardOnly() throws {
        let start = Date(timeIntervalSince1970: 2_000_000_000)
        let stub = try ContractStub(contracts: [loadContract(Self.expiry)], now: { start })
        stub.advanceClock(by: -50)
        #expect(stub.now == start)
    }

    @Test func aClientInAnotherProcessStepsTheClockOverHTTP() async throws {
        let stub = try ContractStub(contracts: [loadContract(Self.expiry)])
        try await ContractStubServer.withRunning(stub, clockPath: "/test/clock") { base in
            func send(_ method: String, _ path: String, _ body: String? = nil, token: String? = nil) async throws -> (Int, JSONValue?) {
                var request = URLRequest(url: base.appendingPathComponent(path))
                request.httpMethod = method
                if let body {
                    request.httpBody = Data(body.utf8)
                    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                }
                if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
                let (data, response) = try await URLSession.shared.data(for: request)
                return ((response as? HTTPURLResponse)?.statusCode ?? 0, try? JSONValue(parsing: data))
            }
            let (_, login) = try await send("POST", "login", #"{"username":"gwen"}"#)
            guard case .string(let token)? = login?["access_token"] else {
                Issue.record("no token")
                return
            }
            #expect(try await send("GET", "me", token: token).0 == 200)
            let (stepped, clock) = try await send("POST", "test/clock", #"{"advance":901}"#)
            #expect(stepped == 200)
            #expect(clock?["stepped"] == .number(901))
            #expect(try await send("GET", "me", token: token).0 == 401)
            #expect(try await send("POST", "test/clock", #"{"advance":-1}"#).0 == 400)
            #expect(try await send("GET", "test/clock").1?["stepped"] == .number(901))
        }
    }
}
