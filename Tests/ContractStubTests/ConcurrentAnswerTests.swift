import ContractKit
import ContractStub
import Foundation
import Testing

/// The stub builds answers (signatures, random values) outside its lock, so concurrent
/// requests are answered in parallel; they must still be answered as the same requests one
/// after another would be.
@Suite struct ConcurrentAnswerTests {
    @Test func concurrentRequestsTakeTurnsAsSequentialOnesDo() async throws {
        let contract = try loadContract(
            """
            name: Turns
            interactions:
              - name: first
                request: { method: POST, path: /login, json: { username: alice } }
                response: { status: 200, json: { access_token: { match: jwt }, refresh_token: { match: string, min_length: 43 } } }
                save: { token: $.access_token }
              - name: second
                request: { method: POST, path: /login, json: { username: alice } }
                response: { status: 429, json: { error: too_many_attempts } }
            """
        )
        let stub = try ContractStub(contracts: [contract])
        let statuses = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<200 {
                group.addTask { stub.respond(to: post("/login", #"{"username":"alice"}"#)).status }
            }
            return await group.reduce(into: [Int: Int]()) { $0[$1, default: 0] += 1 }
        }
        // Each request was the next after the one answered before it: half and half.
        #expect(statuses == [200: 100, 429: 100])
        #expect(stub.exchanges.count == 200)
        #expect(Set(stub.exchanges.map(\.interaction)) == ["first", "second"])
    }
}
