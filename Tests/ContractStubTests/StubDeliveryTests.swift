import ContractKit
import ContractStub
import ContractStubServer
import Foundation
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The stub's deliveries: built from `delivers:`, handed to the test, and the token they
/// carry accepted on the next request.
@Suite struct StubDeliveryTests {
    static let reset = """
        name: Reset
        interactions:
          - name: a reset is requested
            request: { method: POST, path: /password/reset, json: { username: { match: string, example: alice } } }
            response: { status: 202 }
            save: { user: request.json.username }
            delivers:
              - path: /deliveries
                headers: { Authd-Signature: { match: regex, pattern: "t=[0-9]+,v1=[0-9a-f]{64}", example: "t=1,v1=0000000000000000000000000000000000000000000000000000000000000000" } }
                json: { kind: password_reset, token: { match: string, min_length: 32 }, username: "{{user}}" }
                save: { reset: $.token }
          - name: the delivered token resets the password
            request: { method: POST, path: /password/reset/confirm, json: { token: "{{reset}}", new_password: { match: string, min_length: 8, example: a new passphrase } } }
            response: { status: 204 }
        """

    func post(_ path: String, _ json: [String: String], session: URLSession) async throws -> Int {
        var request = URLRequest(url: try #require(URL(string: "https://auth.example\(path)")))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: json)
        let (_, response) = try await session.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    @Test func theDeliveryReachesTheTestAndItsTokenIsAccepted() async throws {
        let stub = try ContractStub(contracts: [try loadContract(Self.reset)])
        let handled = Mutex<[StubDelivery]>([])
        stub.onDelivery { delivery in handled.withLock { $0.append(delivery) } }
        let session = stub.urlSession

        #expect(try await post("/password/reset", ["username": "bob"], session: session) == 202)
        // The handler ran before the answer came back.
        #expect(handled.withLock { $0.count } == 1)
        var iterator = stub.deliveries.makeAsyncIterator()
        let delivery = try #require(await iterator.next())
        #expect(delivery.method == "POST")
        #expect(delivery.path == "/deliveries")
        #expect(delivery.header("Authd-Signature")?.hasPrefix("t=1,v1=") == true)
        #expect(delivery.header("content-type") == "application/json")
        #expect(delivery.json?["kind"] == "password_reset")
        #expect(delivery.json?["username"] == "bob")  // the saved value, as the service would send
        guard case .string(let token)? = delivery.json?["token"] else {
            Issue.record("no token in \(delivery)")
            return
        }
        #expect(token.count >= 32)
        #expect(stub.delivered.map(\.path) == ["/deliveries"])

        // A made-up token is refused; the delivered one is accepted.
        #expect(
            try await post(
                "/password/reset/confirm", ["token": String(repeating: "x", count: 40), "new_password": "a new passphrase"],
                session: session) == 501)
        #expect(try await post("/password/reset/confirm", ["token": token, "new_password": "a new passphrase"], session: session) == 204)
    }

    @Test func aStreamReplaysEarlierDeliveriesThenFollowsNewOnes() async throws {
        let stub = try ContractStub(contracts: [try loadContract(Self.reset)])
        let request = ContractRequest(
            method: "POST", target: "/password/reset", headers: [("Content-Type", "application/json")],
            body: Data(#"{"username":"a"}"#.utf8))
        let first = stub.exchange(request)
        #expect(first.response.status == 202)
        #expect(first.deliveries.count == 1)
        var iterator = stub.deliveries.makeAsyncIterator()
        #expect(await iterator.next()?.json?["username"] == "a")
        _ = stub.respond(
            to: ContractRequest(
                method: "POST", target: "/password/reset", headers: [("Content-Type", "application/json")],
                body: Data(#"{"username":"b"}"#.utf8)))
        #expect(await iterator.next()?.json?["username"] == "b")
        stub.reset()
        #expect(stub.delivered.isEmpty)
    }

    @Test func forwardedDeliveriesArePostedToTheURL() async throws {
        let stub = try ContractStub(contracts: [try loadContract(Self.reset)])
        let (arrivals, continuation) = AsyncStream.makeStream(of: ContractRequest.self)
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await ContractStubServer.serve(onListening: { portContinuation.yield($0) }) { request in
                    continuation.yield(request)
                    return ContractResponse(status: 204, headers: [], body: Data())
                }
            }
            defer { group.cancelAll() }
            var portIterator = ports.makeAsyncIterator()
            let port = try #require(await portIterator.next())
            let logged = Mutex<[String]>([])
            stub.forwardDeliveries(
                to: try #require(URL(string: "http://127.0.0.1:\(port)/")), log: { line in logged.withLock { $0.append(line) } })
            _ = stub.respond(
                to: ContractRequest(
                    method: "POST", target: "/password/reset", headers: [("Content-Type", "application/json")],
                    body: Data(#"{"username":"c"}"#.utf8)))
            var arrivalIterator = arrivals.makeAsyncIterator()
            let arrived = try #require(await arrivalIterator.next())
            #expect(arrived.method == "POST")
            #expect(arrived.target == "/deliveries")
            #expect(arrived.header("authd-signature")?.hasPrefix("t=1,v1=") == true)
            #expect(try JSONValue(parsing: arrived.body ?? Data())["username"] == "c")
            #expect(logged.withLock { $0 } == [])
        }
    }

    @Test func aFailedForwardIsLoggedNotFatal() async throws {
        let stub = try ContractStub(contracts: [try loadContract(Self.reset)])
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        // Port 9 on 127.0.0.1: nothing listens (discard), so the post is refused.
        stub.forwardDeliveries(to: try #require(URL(string: "http://127.0.0.1:9")), log: { continuation.yield($0) })
        let response = stub.respond(
            to: ContractRequest(
                method: "POST", target: "/password/reset", headers: [("Content-Type", "application/json")],
                body: Data(#"{"username":"d"}"#.utf8)))
        #expect(response.status == 202)
        var iterator = lines.makeAsyncIterator()
        let line = try #require(await iterator.next())
        #expect(line.hasPrefix("delivery POST http://127.0.0.1:9/deliveries failed"))
    }

    @Test func aDeliveryThatCannotBeBuiltStopsTheStubBeingMade() throws {
        let yaml = Self.reset.replacingOccurrences(
            of: #", example: "t=1,v1=0000000000000000000000000000000000000000000000000000000000000000""#, with: "")
        #expect(throws: ContractStub.BuildError.self) { try ContractStub(contracts: [try loadContract(yaml)]) }
    }
}
