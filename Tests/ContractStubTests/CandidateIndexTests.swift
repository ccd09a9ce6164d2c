import ContractKit
import Foundation
import Testing

@testable import ContractStub

/// The stub fits a request only against the interactions that can answer it: by route, and
/// among a route's interactions by the literal string their bodies hold under one key (a file
/// of logins told apart by `username`), so a thousand logins cost what ten do.
@Suite struct CandidateIndexTests {
    /// `count` logins with literal usernames, then one taking any username, one taking a
    /// username from the environment, a literal one with the username optional, and one on a
    /// templated path of the same method.
    static func logins(_ count: Int) throws -> Contract {
        var yaml = "name: Logins\ninteractions:\n"
        for index in 0..<count {
            yaml += """
                  - name: user-\(index)
                    request: { method: POST, path: /login, json: { username: user-\(index), password: pw } }
                    response: { status: 200, json: { who: user-\(index) } }

                """
        }
        yaml += """
              - name: anyone
                request: { method: POST, path: /login, json: { username: { match: string }, password: other } }
                response: { status: 401, json: { who: anyone } }
              - name: from the environment
                request: { method: POST, path: /login, json: { username: '{{env.LOGIN_USER}}', password: env } }
                response: { status: 200, json: { who: env } }
              - name: optional
                request: { method: POST, path: /login, json: { username: { match: string, optional: true }, password: alone } }
                response: { status: 200, json: { who: optional } }
              - name: templated
                request: { method: POST, path: '/login/{kind}', path_params: { kind: { match: string } }, json: { username: user-1, password: pw } }
                response: { status: 200, json: { who: templated } }

            """
        return try loadContract(yaml)
    }

    @Test func aLiteralInTheBodyNarrowsTheCandidates() throws {
        let contract = try Self.logins(1000)
        let index = CandidateIndex(requests: contract.interactions.map(\.request))
        // The three without a literal username, and the templated path (a candidate for
        // every path of its method).
        let rest = [1000, 1001, 1002, 1003]
        #expect(index.candidates(for: ParsedRequest(post("/login", #"{"username":"user-500","password":"pw"}"#))) == [500] + rest)
        #expect(index.candidates(for: ParsedRequest(post("/login", #"{"username":"nobody","password":"pw"}"#))) == rest)
        #expect(index.candidates(for: ParsedRequest(post("/login", #"{"username":7,"password":"pw"}"#))) == rest)
        #expect(index.candidates(for: ParsedRequest(post("/login", "not json"))) == rest)
        // A templated path of the method is a candidate for every path.
        #expect(index.candidates(for: ParsedRequest(post("/login/x", #"{"username":"user-1"}"#))) == [1003])
        #expect(index.candidates(for: ParsedRequest(ContractRequest(method: "GET", target: "/login"))) == [])
    }

    @Test func theAnswersAreThoseOfFittingEveryInteraction() throws {
        let stub = try ContractStub(contracts: [try Self.logins(50)], environment: ["LOGIN_USER": "from-env"])
        func who(_ json: String) -> String? {
            let answer = stub.respond(to: post("/login", json))
            guard case .object(let body)? = try? JSONValue(parsing: answer.body) else { return nil }
            return body["who"].flatMap { if case .string(let text) = $0 { text } else { nil } }
        }
        for index in [0, 17, 49] {
            #expect(who(#"{"username":"user-\#(index)","password":"pw"}"#) == "user-\(index)")
        }
        #expect(who(#"{"username":"user-3","password":"other"}"#) == "anyone")
        #expect(who(#"{"username":"from-env","password":"env"}"#) == "env")
        #expect(who(#"{"password":"alone"}"#) == "optional")
        #expect(who(#"{"username":"user-3","password":"alone"}"#) == "optional")
        // No candidate fits: the 501 still looks at every interaction to name the closest.
        let unmatched = stub.respond(to: post("/login", #"{"username":"user-3","password":"wrong"}"#))
        #expect(unmatched.status == 501)
        #expect(stub.unmatched.last?.closest != nil)
    }

    @Test func interactionsSharingALiteralTakeTurnsAsBefore() throws {
        let contract = try loadContract(
            """
            name: Turns
            interactions:
              - name: first
                request: { method: POST, path: /login, json: { username: alice } }
                response: { status: 200, json: { turn: 1 } }
              - name: other
                request: { method: POST, path: /login, json: { username: bob } }
                response: { status: 200, json: { turn: 0 } }
              - name: second
                request: { method: POST, path: /login, json: { username: alice } }
                response: { status: 429, json: { turn: 2 } }
            """
        )
        let stub = try ContractStub(contracts: [contract])
        let statuses = (0..<4).map { _ in stub.respond(to: post("/login", #"{"username":"alice"}"#)).status }
        #expect(statuses == [200, 429, 200, 429])
    }
}
