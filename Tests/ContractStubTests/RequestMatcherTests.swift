import ContractKit
import ContractStub
import Foundation
import Testing

/// Matchers in requests: every matcher in every position, what the verifier sends, which
/// interaction answers when several fit, and values saved from what the client sent.
@Suite struct RequestMatcherTests {
    /// A matcher as written, a value it accepts and one it refuses.
    struct Case: Sendable, CustomTestStringConvertible {
        let yaml: String
        let good: JSONValue
        /// Nil for `any`, which accepts everything.
        let bad: JSONValue?
        var testDescription: String { yaml }
    }

    static let scalarCases: [Case] = [
        Case(yaml: "{ match: string, min_length: 3 }", good: .string("abcd"), bad: .string("ab")),
        Case(yaml: "{ match: integer, min: 1, max: 9, example: 5 }", good: .integer(7), bad: .integer(12)),
        Case(yaml: "{ match: number, min: 0.5 }", good: .number(2.5), bad: .number(0.25)),
        Case(yaml: "{ match: boolean }", good: .bool(false), bad: .string("yes")),
        Case(yaml: "{ match: null }", good: .null, bad: .string("nil")),
        Case(yaml: "{ match: any }", good: .string("whatever"), bad: nil),
        Case(yaml: "{ match: regex, pattern: 'n-[0-9]+', example: n-1 }", good: .string("n-42"), bad: .string("m-42")),
        Case(yaml: "{ match: uuid }", good: .string("0b6c5a3e-2f1d-4a49-9c55-0f8e3c2d1a7b"), bad: .string("not-a-uuid")),
        Case(yaml: "{ match: datetime }", good: .string("2026-11-23T10:00:00Z"), bad: .string("yesterday")),
        Case(
            yaml: "{ match: jwt, example: eyJhbGciOiJub25lIn0.eyJzdWIiOiJhIn0.c2ln }",
            good: .string("eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJiIn0.eHl6"), bad: .string("abc.def")),
    ]

    /// The text a value is in a header, a query parameter or a path segment.
    static func text(_ value: JSONValue) -> String {
        if case .string(let text) = value { return text }
        return value.description
    }

    /// One interaction whose request has `matcher` at a position, and a second that catches
    /// everything else on that route with a 404 (so a refusal shows as that, or 501).
    static func contract(_ position: String, _ matcher: String) throws -> Contract {
        let request: String
        switch position {
        case "json":
            request = "{ method: POST, path: /items, json: { outer: { inner: [1, \(matcher)] } } }"
        case "query":
            request = "{ method: GET, path: /items, query: { filter: \(matcher) } }"
        case "header":
            request = "{ method: GET, path: /items, headers: { X-Item: \(matcher) } }"
        default:
            request = "{ method: GET, path: '/items/{item}/detail', path_params: { item: \(matcher) } }"
        }
        return try loadContract(
            """
            name: Position
            interactions:
              - name: matched
                request: \(request)
                response: { status: 200, json: { ok: true } }
            """
        )
    }

    static func request(_ position: String, _ value: JSONValue) -> ContractRequest {
        switch position {
        case "json":
            return post("/items", JSONValue.object(["outer": .object(["inner": .array([.integer(1), value])])]).description)
        case "query":
            var components = URLComponents()
            components.queryItems = [URLQueryItem(name: "filter", value: text(value))]
            return ContractRequest(method: "GET", target: "/items?" + (components.percentEncodedQuery ?? ""))
        case "header":
            return ContractRequest(method: "GET", target: "/items", headers: [("X-Item", text(value))])
        default:
            let segment = text(value).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            return ContractRequest(method: "GET", target: "/items/\(segment)/detail")
        }
    }

    @Test(arguments: ["json", "query", "header", "path"], scalarCases)
    func everyMatcherInEveryPosition(position: String, matcher: Case) throws {
        let contract = try Self.contract(position, matcher.yaml)
        let stub = try ContractStub(contracts: [contract])
        #expect(stub.respond(to: Self.request(position, matcher.good)).status == 200)
        if let bad = matcher.bad { #expect(stub.respond(to: Self.request(position, bad)).status == 501) }
        // What the verifier sends (the example, or a generated value) is what the stub accepts.
        let sent = try contract.interactions[0].request.render(with: [:])
        #expect(
            stub.respond(to: sent).status == 200,
            "sent \(sent.target) \(sent.headers) \(String(decoding: sent.body ?? Data(), as: UTF8.self))")
        #expect(stub.unmatched.count == (matcher.bad == nil ? 0 : 1))
    }

    @Test func containerMatchersInABody() throws {
        let contract = try loadContract(
            """
            name: Containers
            interactions:
              - name: tags
                request:
                  method: POST
                  path: /tags
                  json: { tags: { match: each, of: { match: string, min_length: 1 }, min: 1, max: 3 }, meta: { match: any } }
                response: { status: 204 }
            """
        )
        let stub = try ContractStub(contracts: [contract])
        #expect(stub.respond(to: post("/tags", #"{"tags": ["a", "b"], "meta": {"x": [1]}}"#)).status == 204)
        #expect(stub.respond(to: post("/tags", #"{"tags": [], "meta": 1}"#)).status == 501)
        #expect(stub.respond(to: post("/tags", #"{"tags": ["a", ""], "meta": 1}"#)).status == 501)
        #expect(stub.respond(to: post("/tags", #"{"tags": ["a"]}"#)).status == 501)
        #expect(stub.respond(to: try contract.interactions[0].request.render(with: [:])).status == 204)
    }

    static let specificity = """
        name: Specificity
        interactions:
          - name: any value
            request: { method: POST, path: /find, json: { key: { match: any } } }
            response: { status: 200, json: { by: any } }
          - name: a string
            request: { method: POST, path: /find, json: { key: { match: string } } }
            response: { status: 200, json: { by: string } }
          - name: a uuid
            request: { method: POST, path: /find, json: { key: { match: uuid } } }
            response: { status: 200, json: { by: uuid } }
          - name: one literal uuid
            request: { method: POST, path: /find, json: { key: 0b6c5a3e-2f1d-4a49-9c55-0f8e3c2d1a7b } }
            response: { status: 200, json: { by: literal } }
          - name: another uuid matcher
            request: { method: POST, path: /find, json: { key: { match: uuid } } }
            response: { status: 200, json: { by: second uuid } }
          - name: a literal path beats a parameter
            request: { method: GET, path: /things/special }
            response: { status: 200, json: { by: literal path } }
          - name: a parameter
            request: { method: GET, path: '/things/{name}', path_params: { name: { match: string } } }
            response: { status: 200, json: { by: parameter } }
        """

    @Test(arguments: [
        (#"{"key": "0b6c5a3e-2f1d-4a49-9c55-0f8e3c2d1a7b"}"#, "literal"),
        (#"{"key": "1c6c5a3e-2f1d-4a49-9c55-0f8e3c2d1a7b"}"#, "uuid"),
        (#"{"key": "plain text"}"#, "string"),
        (#"{"key": 42}"#, "any"),
    ])
    func aLiteralBeatsANarrowMatcherWhichBeatsAWideOne(body: String, answeredBy: String) throws {
        let stub = try ContractStub(contracts: [try loadContract(Self.specificity)])
        #expect(stub.respond(to: post("/find", body)).json?["by"] == .string(answeredBy))
    }

    @Test func tiesGoToTheFirstInFileOrder() throws {
        let stub = try ContractStub(contracts: [try loadContract(Self.specificity)])
        // Two uuid matchers fit equally: the earlier one answers, every time it is asked first.
        let body = #"{"key": "2c6c5a3e-2f1d-4a49-9c55-0f8e3c2d1a7b"}"#
        #expect(stub.respond(to: post("/find", body)).json?["by"] == .string("uuid"))
        stub.reset()
        #expect(stub.respond(to: post("/find", body)).json?["by"] == .string("uuid"))
        #expect(stub.respond(to: ContractRequest(method: "GET", target: "/things/special")).json?["by"] == .string("literal path"))
        #expect(stub.respond(to: ContractRequest(method: "GET", target: "/things/other")).json?["by"] == .string("parameter"))
    }

    @Test func tiesAcrossFilesGoToTheFileLoadedFirst() throws {
        func file(_ name: String) throws -> Contract {
            try loadContract(
                """
                name: \(name)
                interactions:
                  - name: from \(name)
                    request: { method: GET, path: '/n/{id}', path_params: { id: { match: integer } } }
                    response: { status: 200, json: { by: \(name) } }
                """,
                file: "\(name).yaml"
            )
        }
        let stub = try ContractStub(contracts: [try file("a"), try file("b")])
        #expect(stub.respond(to: ContractRequest(method: "GET", target: "/n/7")).json?["by"] == .string("a"))
    }

    static let notes = """
        name: Notes
        interactions:
          - name: a client names its note
            request:
              method: PUT
              path: '/notes/{id}'
              path_params: { id: { match: uuid } }
              query: { draft: { match: boolean, example: true } }
              headers: { X-Client: { match: regex, pattern: 'app-[0-9]+', example: app-1 } }
              json: { title: { match: string, min_length: 1, example: Groceries } }
            response:
              status: 201
              json: { id: "{{note}}", title: "{{title}}", draft: "{{draft}}", client: "{{client}}" }
            save:
              note: request.path.id
              title: request.json.title
              draft: request.query.draft
              client: request.headers.X-Client
          - name: the same note is read back
            request:
              method: GET
              path: '/notes/{{note}}'
            response:
              status: 200
              json: { id: "{{note}}", title: "{{title}}" }
        """

    @Test func savedValuesComeFromWhatTheClientSent() throws {
        let stub = try ContractStub(contracts: [try loadContract(Self.notes)])
        let id = "9e4f1a22-8a3b-4c1d-9e0f-1a2b3c4d5e6f"
        let created = stub.respond(
            to: ContractRequest(
                method: "PUT", target: "/notes/\(id)?draft=false", headers: [("Content-Type", "application/json"), ("X-Client", "app-7")],
                body: Data(#"{"title": "Books"}"#.utf8)
            )
        )
        #expect(created.status == 201)
        #expect(
            created.json == .object(["id": .string(id), "title": .string("Books"), "draft": .string("false"), "client": .string("app-7")]))
        #expect(stub.respond(to: ContractRequest(method: "GET", target: "/notes/\(id)")).json?["title"] == .string("Books"))
        // Another id is not the note the client made.
        #expect(stub.respond(to: ContractRequest(method: "GET", target: "/notes/1e4f1a22-8a3b-4c1d-9e0f-1a2b3c4d5e6f")).status == 501)
    }

    @Test func theVerifierSendsExamplesAndSavesWhatItSent() throws {
        let contract = try loadContract(Self.notes)
        let interaction = contract.interactions[0]
        let request = try interaction.request.render(with: [:])
        let (path, query) = request.pathAndQuery
        let id = String(path.dropFirst("/notes/".count))
        #expect(UUID(uuidString: id) != nil)
        #expect(query.map(\.value) == ["true"])
        #expect(request.header("X-Client") == "app-1")
        #expect(request.body.flatMap { try? JSONValue(parsing: $0) } == .object(["title": .string("Groceries")]))
        let response = ContractResponse(status: 201, headers: [], body: Data("{}".utf8))
        let saved = interaction.captures(request: request, response: response)
        #expect(saved.missing == [])
        #expect(saved.values == ["note": .string(id), "title": .string("Groceries"), "draft": .string("true"), "client": .string("app-1")])
    }

    @Test(arguments: [
        ("path: '/n/{id}'", "path segment {id} has no matcher in path_params"),
        ("path: /n, path_params: { id: { match: uuid } }", "path_params names 'id', but the path has no {id} segment"),
        ("path: /n, headers: { X-A: { match: each, of: { match: any } } }", "header 'X-A' must be text or a matcher of text"),
        (
            "path: /n, json: { a: { match: regex, pattern: 'x+' } }",
            "json at $.a: a regex matcher (/x+/) needs an example, the value the verifier sends"
        ),
        ("path: /n, query: { t: { match: jwt } }", "query parameter 't': a jwt matcher needs an example, the value the verifier sends"),
    ])
    func requestMatchersTheVerifierCannotSendAreDiagnosed(request: String, message: String) {
        let yaml = """
            name: Broken
            interactions:
              - name: broken
                request: { method: GET, \(request) }
                response: { status: 200 }
              - name: saves what is not there
                request: { method: GET, path: /m }
                response: { status: 200 }
                save: { x: request.path.id }
            """
        let (_, diagnostics) = ContractLoader.parse(yaml: yaml, file: "broken.yaml")
        let messages = diagnostics.map(\.message)
        #expect(messages.contains { $0.hasPrefix(message) }, "\(messages)")
        #expect(messages.contains("the request's path has no parameter {id}"))
    }
}
