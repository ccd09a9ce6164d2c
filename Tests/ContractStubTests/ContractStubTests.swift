import ContractKit
import ContractStub
import Crypto
import Foundation
import JOSE
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

func loadContract(_ yaml: String, file: String = "stub.yaml") throws -> Contract {
    let (contract, diagnostics) = ContractLoader.parse(yaml: yaml, file: file)
    #expect(diagnostics == [])
    return try #require(contract)
}

func post(_ path: String, _ json: String, headers: [(name: String, value: String)] = []) -> ContractRequest {
    ContractRequest(method: "POST", target: path, headers: [("Content-Type", "application/json")] + headers, body: Data(json.utf8))
}

@Suite struct ContractStubTests {
    static let toy = """
        name: Toy
        interactions:
          - name: login gives a token
            given: [user exists]
            request:
              method: POST
              path: /login
              json: { username: alice, password: secret }
            response:
              status: 200
              headers: { Cache-Control: no-store }
              json:
                access_token: { match: jwt }
                token_type: Bearer
                expires_in: { match: integer, min: 60, example: 900 }
                refresh_token: { match: string, min_length: 43 }
            save: { token: $.access_token, refresh: $.refresh_token }
          - name: the token opens /me
            request:
              method: GET
              path: /me
              headers: { Authorization: "Bearer {{token}}" }
            response:
              status: 200
              json: { username: alice, id: { match: uuid }, created_at: { match: datetime } }
          - name: a revoked refresh token is refused
            request:
              method: POST
              path: /token/refresh
              json: { refresh_token: revoked }
            response:
              status: 401
              json: { error: invalid_token }
          - name: the saved refresh token is accepted
            request:
              method: POST
              path: /token/refresh
              json: { refresh_token: "{{refresh}}" }
            response:
              status: 200
              json: { access_token: { match: jwt } }
          - name: a wrong password is refused
            request:
              method: POST
              path: /login
              json: { username: alice, password: wrong }
            response:
              status: 401
              json: { error: invalid_credentials }
        """

    @Test func answersFromTheContractWithGeneratedValues() throws {
        let stub = try ContractStub(contracts: [try loadContract(Self.toy)])
        #expect(stub.respond(to: post("/login", #"{"username": "alice", "password": "secret", "extra": 1}"#)).status == 501)
        let response = stub.respond(to: post("/login", #"{"username": "alice", "password": "secret"}"#))
        #expect(response.status == 200)
        #expect(response.header("cache-control") == "no-store")
        #expect(response.header("content-type") == "application/json")
        let body = try #require(response.json)
        #expect(body["token_type"] == .string("Bearer"))
        #expect(body["expires_in"] == .integer(900))
        guard case .string(let refresh)? = body["refresh_token"] else {
            Issue.record("refresh_token is not a string")
            return
        }
        #expect(refresh.count >= 43)
        // The generated body satisfies the contract it came from.
        let contract = try loadContract(Self.toy)
        #expect(contract.interactions[0].response.mismatches(in: response) == [])
    }

    @Test func issuedTokensAreRealJWTsSignedByTheStubsKey() throws {
        let stub = try ContractStub(contracts: [try loadContract(Self.toy)])
        let body = try #require(stub.respond(to: post("/login", #"{"username": "alice", "password": "secret"}"#)).json)
        guard case .string(let token)? = body["access_token"] else {
            Issue.record("no token")
            return
        }
        let parts = token.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        guard case .array(let keys)? = stub.signer.jwks["keys"], case .string(let x)? = keys.first?["x"] else {
            Issue.record("no JWKS key")
            return
        }
        let publicKey = try Curve25519.Signing.PublicKey(rawRepresentation: try #require(Base64URL.decode(x)))
        #expect(publicKey.isValidSignature(try #require(Base64URL.decode(parts[2])), for: Data("\(parts[0]).\(parts[1])".utf8)))
        let header = try JSONValue(parsing: try #require(Base64URL.decode(parts[0])))
        #expect(header["kid"] == keys.first?["kid"])
        #expect(header["alg"] == .string("EdDSA"))
    }

    @Test func isStatefulWhereTheContractsAre() throws {
        let stub = try ContractStub(contracts: [try loadContract(Self.toy)])
        // Before a login, the stub has no token to recognise: the placeholder accepts any.
        let login = try #require(stub.respond(to: post("/login", #"{"username": "alice", "password": "secret"}"#)).json)
        guard case .string(let token)? = login["access_token"], case .string(let refresh)? = login["refresh_token"] else {
            Issue.record("no tokens")
            return
        }
        let me = stub.respond(to: ContractRequest(method: "GET", target: "/me", headers: [("Authorization", "Bearer \(token)")]))
        #expect(me.status == 200)
        #expect(try #require(me.json)["username"] == .string("alice"))

        let forged = stub.respond(to: ContractRequest(method: "GET", target: "/me", headers: [("Authorization", "Bearer someone-elses")]))
        #expect(forged.status == 501)

        #expect(stub.respond(to: post("/token/refresh", #"{"refresh_token": "\#(refresh)"}"#)).status == 200)
        #expect(stub.respond(to: post("/token/refresh", #"{"refresh_token": "made-up"}"#)).status == 501)
    }

    @Test func literalsBeatPlaceholders() throws {
        let stub = try ContractStub(contracts: [try loadContract(Self.toy)])
        // Nothing saved yet: "{{refresh}}" would accept anything, but the literal is more specific.
        #expect(stub.respond(to: post("/token/refresh", #"{"refresh_token": "revoked"}"#)).status == 401)
        #expect(stub.respond(to: post("/token/refresh", #"{"refresh_token": "anything"}"#)).status == 200)
        #expect(stub.exchanges.map(\.interaction) == ["a revoked refresh token is refused", "the saved refresh token is accepted"])
    }

    @Test func unmatchedRequestsGet501NamingTheClosestInteraction() throws {
        let stub = try ContractStub(contracts: [try loadContract(Self.toy)])
        let response = stub.respond(to: post("/login", #"{"username": "alice", "password": "hunter2"}"#))
        #expect(response.status == 501)
        let body = try #require(response.json)
        #expect(body["error"] == .string("not_stubbed"))
        let unmatched = try #require(stub.unmatched.first)
        #expect(stub.unmatched.count == 1)
        #expect(
            unmatched.closest?.hasPrefix("login gives a token (stub.yaml:") == true
                || unmatched.closest?.hasPrefix("a wrong password") == true)
        #expect(unmatched.difference.contains("$.password"))
        guard case .string(let description)? = body["error_description"] else {
            Issue.record("no description")
            return
        }
        #expect(description.contains("$.password"))

        #expect(stub.respond(to: ContractRequest(method: "DELETE", target: "/login")).status == 501)
        #expect(stub.respond(to: ContractRequest(method: "POST", target: "/nowhere", body: Data("{}".utf8))).status == 501)
        #expect(stub.unmatched.count == 3)
        #expect(stub.requests.count == 3)
    }

    /// A value too long to read (a probe's 10,000-character string) is shown cut in the 501's
    /// explanation, not echoed whole.
    @Test func anUnmatchedRequestsLongValueIsShownCut() throws {
        let stub = try ContractStub(contracts: [try loadContract(Self.toy)])
        let long = String(repeating: "x", count: 10_000)
        let response = stub.respond(to: post("/login", #"{"username": "alice", "password": "\#(long)"}"#))
        #expect(response.status == 501)
        let difference = try #require(stub.unmatched.first?.difference)
        #expect(difference.contains("$.password"))
        #expect(difference.contains("\"" + String(repeating: "x", count: 40)))
        #expect(difference.count < 300, "\(difference.count) characters")
        #expect(response.body.count < 1_000)
    }

    @Test func inactiveStatesHideTheirInteractions() throws {
        let stub = try ContractStub(contracts: [try loadContract(Self.toy)], activeStates: [])
        #expect(stub.respond(to: post("/login", #"{"username": "alice", "password": "secret"}"#)).status == 501)
        #expect(stub.respond(to: post("/login", #"{"username": "alice", "password": "wrong"}"#)).status == 401)
        let active = try ContractStub(contracts: [try loadContract(Self.toy)], activeStates: ["user exists"])
        #expect(active.respond(to: post("/login", #"{"username": "alice", "password": "secret"}"#)).status == 200)
    }

    @Test func everyMatcherGetsAValueThatSatisfiesIt() throws {
        let yaml = """
            name: Kinds
            interactions:
              - name: all kinds
                request: { method: GET, path: /kinds }
                response:
                  status: 200
                  headers: { X-Trace: { match: regex, pattern: "t-[0-9]+", example: t-42 } }
                  json:
                    s: { match: string, min_length: 30, max_length: 30 }
                    i: { match: integer, min: 5, max: 9 }
                    n: { match: number, min: 0.5 }
                    b: { match: boolean }
                    z: { match: null }
                    a: { match: any }
                    r: { match: regex, pattern: "[a-z]{3}", example: abc }
                    u: { match: uuid }
                    d: { match: datetime }
                    j: { match: jwt }
                    e: { match: each, of: { id: { match: integer } }, min: 2 }
                    l: [1, two]
            """
        let contract = try loadContract(yaml)
        let stub = try ContractStub(contracts: [contract])
        let response = stub.respond(to: ContractRequest(method: "GET", target: "/kinds"))
        #expect(contract.interactions[0].response.mismatches(in: response) == [])
        #expect(response.header("x-trace") == "t-42")
        guard case .array(let elements)? = response.json?["e"] else {
            Issue.record("e is not an array")
            return
        }
        #expect(elements.count == 2)
    }

    @Test func aRegexWithoutExampleCannotBeStubbed() throws {
        let yaml = """
            name: Regex
            interactions:
              - name: needs an example
                request: { method: GET, path: /r }
                response: { status: 200, json: { code: { match: regex, pattern: "[0-9]{6}" } } }
            """
        #expect {
            try ContractStub(contracts: [try loadContract(yaml)])
        } throws: { error in
            "\(error)".contains("stub.yaml:3") && "\(error)".contains("needs an example")
        }
    }

    @Test func theJWKSMatcherServesTheStubsKeyAtAnyPath() throws {
        let yaml = """
            name: Keys
            interactions:
              - name: keys
                request: { method: GET, path: /oauth/certs }
                response: { status: 200, json: { match: jwks, min: 1 } }
              - name: keys nested
                request: { method: GET, path: /discovery }
                response: { status: 200, json: { issuer: me, signing: { match: jwks } } }
            """
        let stub = try ContractStub(contracts: [try loadContract(yaml)])
        #expect(stub.respond(to: ContractRequest(method: "GET", target: "/oauth/certs")).json == stub.signer.jwks)
        #expect(stub.respond(to: ContractRequest(method: "GET", target: "/discovery")).json?["signing"] == stub.signer.jwks)
        #expect(Matcher(.jwks(min: 1, max: 1)).mismatches(in: stub.signer.jwks) == [])
    }

    @Test func buildsFromAuthdsOwnContractsAndServesItsJWKS() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("contracts").path
        let stub = try ContractStub(directory: directory)
        let jwks = stub.respond(to: ContractRequest(method: "GET", target: "/.well-known/jwks.json"))
        #expect(jwks.status == 200)
        #expect(jwks.json == stub.signer.jwks)
        let login = stub.respond(to: post("/login", #"{"username": "alice", "password": "correct horse battery staple"}"#))
        #expect(login.status == 200)
        let wrong = stub.respond(to: post("/login", #"{"username": "alice", "password": "wrong password"}"#))
        #expect(wrong.status == 401)
        #expect(wrong.header("www-authenticate") == #"Bearer realm="authd""#)
    }

    static let sequence = """
        name: Sequence
        interactions:
          - name: login
            request:
              method: POST
              path: /login
              json: { username: carol, password: secret }
            response:
              status: 200
              json:
                access_token: { match: jwt, claims: { sub: { match: uuid }, exp: { match: integer, min: 1 } } }
                refresh_token: { match: string, min_length: 43, max_length: 43 }
            save: { access: $.access_token, sub: $.access_token.sub, first: $.refresh_token }
          - name: me
            request:
              method: GET
              path: /me
              headers: { Authorization: "Bearer {{access}}" }
            response:
              status: 200
              json: { user_id: "{{sub}}" }
          - name: refresh
            request:
              method: POST
              path: /token/refresh
              json: { refresh_token: "{{first}}" }
            response:
              status: 200
              json:
                access_token: { match: jwt, claims: { sub: "{{sub}}" } }
                refresh_token: { match: string, min_length: 43, max_length: 43 }
            save: { second: $.refresh_token }
          - name: replay
            request:
              method: POST
              path: /token/refresh
              json: { refresh_token: "{{first}}" }
            response:
              status: 401
              json: { error: invalid_token }
          - name: newest after the replay
            request:
              method: POST
              path: /token/refresh
              json: { refresh_token: "{{second}}" }
            response:
              status: 401
              json: { error: invalid_token }
        """

    @Test func equalFitsAnswerInFileOrderSoAReplayIsRefused() throws {
        let stub = try ContractStub(contracts: [try loadContract(Self.sequence)])
        let login = try #require(stub.respond(to: post("/login", #"{"username": "carol", "password": "secret"}"#)).json)
        guard case .string(let first)? = login["refresh_token"] else {
            Issue.record("no refresh token")
            return
        }
        let refreshed = stub.respond(to: post("/token/refresh", #"{"refresh_token": "\#(first)"}"#))
        #expect(refreshed.status == 200)
        guard case .string(let second)? = refreshed.json?["refresh_token"] else {
            Issue.record("no second refresh token")
            return
        }
        #expect(second != first)
        // The same token again: "refresh" and "replay" fit equally; the next in the file answers.
        #expect(stub.respond(to: post("/token/refresh", #"{"refresh_token": "\#(first)"}"#)).status == 401)
        #expect(stub.respond(to: post("/token/refresh", #"{"refresh_token": "\#(second)"}"#)).status == 401)
        #expect(stub.exchanges.map(\.interaction) == ["login", "refresh", "replay", "newest after the replay"])

        // After the end of the file, the order starts again at the top.
        stub.reset()
        let again = try #require(stub.respond(to: post("/login", #"{"username": "carol", "password": "secret"}"#)).json)
        guard case .string(let fresh)? = again["refresh_token"] else {
            Issue.record("no refresh token")
            return
        }
        #expect(stub.respond(to: post("/token/refresh", #"{"refresh_token": "\#(fresh)"}"#)).status == 200)
    }

    @Test func mintedTokensCarryTheClaimsTheContractAsksForAndResponsesRepeatSavedValues() throws {
        let stub = try ContractStub(contracts: [try loadContract(Self.sequence)])
        let login = try #require(stub.respond(to: post("/login", #"{"username": "carol", "password": "secret"}"#)).json)
        guard case .string(let token)? = login["access_token"], case .string(let first)? = login["refresh_token"] else {
            Issue.record("no tokens")
            return
        }
        let sub = try JSONPath("$.t.sub").value(in: .object(["t": .string(token)]))
        guard case .string(let subject)? = sub else {
            Issue.record("no sub claim")
            return
        }
        #expect(UUID(uuidString: subject) != nil)
        // The signer's live expiry satisfies `exp: integer >= 1`, so it is kept.
        guard case .integer(let exp)? = try JSONPath("$.t.exp").value(in: .object(["t": .string(token)])) else {
            Issue.record("no exp claim")
            return
        }
        #expect(exp > Int(Date().timeIntervalSince1970))

        let me = stub.respond(to: ContractRequest(method: "GET", target: "/me", headers: [("Authorization", "Bearer \(token)")]))
        #expect(me.json?["user_id"] == .string(subject))
        let refreshed = try #require(stub.respond(to: post("/token/refresh", #"{"refresh_token": "\#(first)"}"#)).json)
        guard case .string(let next)? = refreshed["access_token"] else {
            Issue.record("no refreshed token")
            return
        }
        #expect(try JSONPath("$.t.sub").value(in: .object(["t": .string(next)])) == .string(subject))
    }

    @Test func requestsFindLiteralAndPlaceholderPathsAmongManyInteractions() throws {
        let stub = try ContractStub(contracts: [
            try loadContract(
                """
                name: Items
                interactions:
                  - name: create
                    request: { method: POST, path: /items, json: { name: x } }
                    response: { status: 201, json: { id: { match: string, example: "8" } } }
                    save: { id: $.id }
                  - name: the created item
                    request: { method: GET, path: "/items/{{id}}" }
                    response: { status: 200, json: { kind: created } }
                  - name: item 7
                    request: { method: GET, path: /items/7 }
                    response: { status: 200, json: { kind: seven } }
                  - name: item 7 deleted
                    request: { method: DELETE, path: /items/7 }
                    response: { status: 204 }
                """
            )
        ])
        #expect(stub.respond(to: post("/items", #"{"name": "x"}"#)).status == 201)
        #expect(stub.respond(to: ContractRequest(method: "GET", target: "/items/7")).json?["kind"] == .string("seven"))
        #expect(stub.respond(to: ContractRequest(method: "GET", target: "/items/8")).json?["kind"] == .string("created"))
        #expect(stub.respond(to: ContractRequest(method: "DELETE", target: "/items/7")).status == 204)
        let unmatched = stub.respond(to: ContractRequest(method: "DELETE", target: "/items/8"))
        #expect(unmatched.status == 501)
        #expect(stub.unmatched.last?.closest?.hasPrefix("item 7 deleted") == true)
    }
}
