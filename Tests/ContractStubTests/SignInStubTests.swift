import ContractKit
import ContractStub
import Foundation
import JOSE
import Testing

/// The stub as an app's OpenID provider: its ID tokens carry the `at_hash` of the access
/// token it hands out with them, its pages' examples carry the values the app sent, and a
/// test can start it where a signed-in browser's answer comes (``ContractStub/resume(at:)``).
@Suite struct SignInStubTests {
    static let contract = """
        name: Sign-in
        interactions:
          - name: the sign-in page
            request:
              method: GET
              path: /authorize
              query: { client_id: app, state: { match: string, example: s } }
            response:
              status: 200
              body:
                match: regex
                pattern: "(?s)<form.*"
                example: '<form action="/authorize/sign-in?client_id=app&amp;state={{state}}"></form>'
            save: { state: request.query.state }
          - name: a signed-in browser gets its code at once
            request:
              method: GET
              path: /authorize
              query: { client_id: app, state: { match: string, example: s } }
            response:
              status: 303
              location:
                url: "http://127.0.0.1/cb"
                query: { code: { match: string, example: the-code }, state: "{{state}}" }
            save: { state: request.query.state }
          - name: the code is exchanged
            request: { method: POST, path: /token }
            response:
              status: 200
              json:
                access_token: { match: jwt, claims: { sub: { match: uuid } } }
                id_token: { match: jwt, claims: { at_hash: { match: at_hash } } }
        """

    @Test func theIDTokenCarriesTheAtHashOfTheAccessTokenBesideIt() throws {
        let stub = try ContractStub(contracts: [try loadContract(Self.contract)])
        for _ in 0..<3 {
            let answer = stub.respond(to: ContractRequest(method: "POST", target: "/token"))
            guard case .object(let body)? = answer.json, case .string(let access)? = body["access_token"],
                case .string(let idToken)? = body["id_token"], let jws = CompactJWS(idToken),
                case .object(let claims) = try JSONValue(parsing: jws.payload)
            else {
                Issue.record("not a token response: \(answer.status)")
                return
            }
            #expect(claims["at_hash"] == .string(TokenHash.of(access, algorithm: StubSigner.algorithm)))
        }
    }

    @Test func aPagesExampleCarriesTheValuesTheRequestSent() throws {
        let stub = try ContractStub(contracts: [try loadContract(Self.contract)])
        let page = stub.respond(to: ContractRequest(method: "GET", target: "/authorize?client_id=app&state=the-apps-state"))
        #expect(page.status == 200)
        #expect(
            String(decoding: page.body, as: UTF8.self)
                == #"<form action="/authorize/sign-in?client_id=app&amp;state=the-apps-state"></form>"#)
    }

    @Test func aTestResumesWhereTheSignedInBrowserIsAnswered() throws {
        let stub = try ContractStub(contracts: [try loadContract(Self.contract)])
        let request = ContractRequest(method: "GET", target: "/authorize?client_id=app&state=mine")
        #expect(stub.respond(to: request).status == 200, "the file starts at its first interaction")
        stub.reset()
        try stub.resume(at: "a signed-in browser gets its code at once")
        let answer = stub.respond(to: request)
        #expect(answer.status == 303)
        #expect(answer.header("Location")?.hasSuffix("state=mine") == true, "\(answer.header("Location") ?? "")")
        #expect(throws: ContractStub.BuildError.self) { try stub.resume(at: "no such interaction") }
        // A name two files share needs its file.
        let twice = try ContractStub(contracts: [
            try loadContract(Self.contract, file: "a.yaml"), try loadContract(Self.contract, file: "b.yaml"),
        ])
        #expect(throws: ContractStub.BuildError.self) { try twice.resume(at: "a signed-in browser gets its code at once") }
        try twice.resume(at: "a signed-in browser gets its code at once", in: "b.yaml")
    }
}
