import ContractKit
import ContractRunner
import ContractTestSupport
import Foundation
import Testing

@Suite struct ProbeTests {
    /// What these tests check is how answers are classified, not how fast they come: the
    /// provider runs in this process, beside suites that hash passwords, on two cores.
    static let generous: Duration = .seconds(30)

    @Test func variantsCoverEveryFieldAtAnyDepthAndTheBodyAsAWhole() throws {
        let request = ContractRequest(
            method: "POST", target: "/x", headers: [("Content-Type", "application/json")],
            body: Data(#"{"name": "ann", "age": 3, "tags": ["a"], "address": {"city": "Oslo"}}"#.utf8)
        )
        let variants = ProbeVariant.derive(from: request, limits: .init(longString: 20, oversizedBody: 300))
        #expect(
            variants.map(\.name) == [
                "address missing", "address null", "address a string", "address empty",
                "address.city missing", "address.city null", "address.city a number", "address.city empty",
                "address.city too long (20 characters)",
                "age missing", "age null", "age a string",
                "name missing", "name null", "name a number", "name empty", "name too long (20 characters)",
                "tags missing", "tags null", "tags a string", "tags empty",
                "an unknown extra field", "a body that is not JSON", "Content-Type text/plain", "a body of 300 bytes",
            ]
        )
        func body(_ name: String) throws -> JSONValue {
            let variant = try #require(variants.first { $0.name == name })
            return try JSONValue(parsing: try #require(variant.request.body))
        }
        #expect(try body("address.city null")["address"] == .object(["city": .null]))
        #expect(try body("age missing")["age"] == nil)
        #expect(try body("name too long (20 characters)")["name"] == .string(String(repeating: "x", count: 20)))
        #expect(try body("an unknown extra field")["unexpected_field"] == .string("probe"))
        let plain = try #require(variants.first { $0.name == "Content-Type text/plain" })
        #expect(plain.request.headers.map(\.value) == ["text/plain"])
        #expect(plain.request.body == request.body)
        #expect(try #require(variants.last).request.body?.count == 300)
        #expect(ProbeVariant.derive(from: ContractRequest(method: "GET", target: "/x")).isEmpty)
    }

    /// The too-large body is the request's object with its first string field (by name) grown
    /// to the size, the other fields as they were, whatever characters they hold.
    @Test(arguments: [#"{"b": 1, "c": "ann", "d": {"e": "Oslo"}}"#, #"{"b": 1, "c": "\u0001", "d": {"e": "\u0001\"\\"}}"#])
    func anOversizedBodyIsTheObjectWithItsFirstStringGrown(_ json: String) throws {
        let request = ContractRequest(method: "POST", target: "/x", headers: [("Content-Type", "application/json")], body: Data(json.utf8))
        let variant = try #require(ProbeVariant.derive(from: request, limits: .init(longString: 20, oversizedBody: 300)).last)
        #expect(variant.name == "a body of 300 bytes")
        let body = try #require(variant.request.body)
        #expect(body.count == 300)
        let original = try JSONValue(parsing: Data(json.utf8))
        let grown = try JSONValue(parsing: body)
        #expect(grown["b"] == original["b"])
        #expect(grown["d"] == original["d"])
        guard case .string(let text)? = grown["c"] else {
            Issue.record("c is not a string: \(grown)")
            return
        }
        #expect(text.count > 250 && text.allSatisfy { $0 == "x" })
    }

    /// A field one interaction of a route sends and another, answered 2xx, leaves out is
    /// optional: no "missing" variant (still a null one); a field every 2xx sends, or one
    /// only refused requests leave out, is required.
    @Test func aFieldTheContractsShowAcceptedWithoutIsNotProbedMissing() throws {
        let contract = try loadContract(
            """
            name: Sign-up
            interactions:
              - name: with an address
                request: { method: POST, path: /users, json: { username: a, password: p, email: a@example.com } }
                response: { status: 201 }
              - name: without one
                request: { method: POST, path: /users, json: { username: b, password: p } }
                response: { status: 201 }
              - name: without a password
                request: { method: POST, path: /users, json: { username: c } }
                response: { status: 400 }
            """
        )
        let optional = ProbeVariant.optionalFields(in: [contract])
        #expect(optional["POST /users"] == ["email"])
        let request = ContractRequest(
            method: "POST", target: "/users", headers: [("Content-Type", "application/json")],
            body: Data(#"{"username": "a", "password": "p", "email": "a@example.com"}"#.utf8)
        )
        let names = ProbeVariant.derive(from: request, optional: optional["POST /users"] ?? []).map(\.name)
        #expect(!names.contains("email missing"))
        #expect(names.contains("email null"))
        #expect(names.contains("password missing"))
        #expect(names.contains("username missing"))
    }

    @Test func declaredErrorShapesAreKeysAndTypes() throws {
        let contract = try loadContract(NotesProvider.contract)
        let shapes = ErrorShapes([contract])
        #expect(shapes.accepts(.object(["error": .string("whatever"), "error_description": .string("x")])))
        #expect(!shapes.accepts(.object(["message": .string("x")])))
        #expect(!shapes.accepts(.object(["error": .integer(1), "error_description": .string("x")])))
        #expect(!shapes.accepts(nil))
    }

    /// A route whose 4xx is a page (a browser's) may answer any bad input with it; no other
    /// route may.
    @Test func aPageIsTheShapeOfItsOwnRoutesErrors() throws {
        let contract = try loadContract(
            """
            name: Pages
            interactions:
              - name: a callback without its attempt is refused on a page
                request: { method: POST, path: /callback, form: { state: { match: string, example: s } } }
                response:
                  status: 400
                  body: { match: regex, pattern: "(?s)<!DOCTYPE html>.*not be finished.*", example: "<!DOCTYPE html><h1>could not be finished</h1>" }
            """)
        let shapes = ErrorShapes([contract])
        let page = "<!DOCTYPE html>\n<h1>This sign-in could not be finished</h1>"
        #expect(shapes.accepts(page: page, method: "POST", target: "/callback?x=1"))
        #expect(!shapes.accepts(page: page, method: "POST", target: "/login"))
        #expect(!shapes.accepts(page: page, method: "GET", target: "/callback"))
        #expect(!shapes.accepts(page: "<!DOCTYPE html><h1>Oops</h1>", method: "POST", target: "/callback"))
    }

    @Test func aSoundProviderPassesAndCoverageIsReported() async throws {
        let contract = try loadContract(NotesProvider.contract, file: "notes.yaml")
        let report = try await NotesProvider.withRunning { url in
            await ContractProber(live: HTTPTransport(baseURL: url), contracts: [contract], states: nil, deadline: Self.generous).probe()
        }
        let text = ProbeTextReport.render(report, color: false)
        #expect(report.succeeded, "\(text)")
        #expect(report.passedCount > 20)
        // The contract declares a note without a title, so the stub answers that variant as the provider does.
        let note = try #require(report.interactions.first { $0.interaction.name == "a note is made with any title" })
        #expect(note.variants.first { $0.name == "title missing" }?.describedBy == "a note without a title is refused")
        #expect(note.variants.first { $0.name == "title a number" }?.describedBy == nil)
        #expect(text.contains("    ✓ title a number → 400 invalid_request  [no contract describes it]"))
        #expect(text.contains("    ✓ title missing → 400 invalid_request  [as 'a note without a title is refused']"))
        #expect(text.contains("  the note is read back by its id (notes.yaml:"))
        #expect(text.hasSuffix("\(report.passedCount) passed, 0 failed"))
    }

    @Test func aBrokenProviderFailsWithA5xxAndAnUndeclaredShape() async throws {
        let contract = try loadContract(NotesProvider.contract, file: "notes.yaml")
        let report = try await NotesProvider.withRunning(broken: true) { url in
            await ContractProber(live: HTTPTransport(baseURL: url), contracts: [contract], states: nil, deadline: Self.generous).probe()
        }
        let failures = report.interactions.flatMap(\.variants).filter { !$0.passed }
        #expect(failures.map(\.name) == ["title missing", "title a number"])
        #expect(
            failures.map(\.failure) == [
                #"a server error (500) "Internal Server Error""#, #"an error shape no contract declares: "{\"message\":\"bad title\"}""#,
            ])
        let text = ProbeTextReport.render(report, color: false)
        #expect(
            text.contains(
                #"    ✗ title missing → 500: a server error (500) "Internal Server Error"  [a contract says 400: 'a note without a title is refused']"#
            ))
        #expect(text.hasSuffix("\(report.passedCount) passed, 2 failed"))
        #expect(!report.succeeded)
        let json = try JSONValue(parsing: Data(ProbeJSONReport.render(report).utf8))
        #expect(json["failed"] == .integer(2))
    }

    /// Answers every request with a declared error, except bodies that are not JSON: those hang.
    struct HangingTransport: ContractTransport {
        func send(_ request: ContractRequest) async throws -> ContractResponse {
            if request.body == Data("this is not JSON".utf8) { try await Task.sleep(for: .seconds(300)) }
            return ContractResponse(status: 400, headers: [], body: Data(#"{"error": "invalid_request", "error_description": "no"}"#.utf8))
        }
    }

    /// Answers every request at once except the contract's own login, which never comes.
    struct UnansweredLogin: ContractTransport {
        func send(_ request: ContractRequest) async throws -> ContractResponse {
            if request.target == "/login", let body = request.body, String(decoding: body, as: UTF8.self).contains(#""secret""#) {
                try await Task.sleep(for: .seconds(300))
            }
            return ContractResponse(status: 400, headers: [], body: Data(#"{"error": "invalid_request", "error_description": "no"}"#.utf8))
        }
    }

    @Test func whatALaterInteractionLacksNamesTheAnswerThatDidNotCome() async throws {
        let contract = try loadContract(NotesProvider.contract, file: "notes.yaml")
        let report = await ContractProber(live: UnansweredLogin(), contracts: [contract], states: nil, deadline: .milliseconds(100)).probe()
        let note = report.interactions.first { $0.interaction.name == "a note is made with any title" }?.note
        #expect(note == "undefined variable 'token' ('a login gives tokens' got no answer within 0.4 s)")
    }

    @Test func anAnswerThatDoesNotComeWithinTheDeadlineFails() async throws {
        let contract = try loadContract(NotesProvider.contract, file: "notes.yaml")
        let start = ContinuousClock.now
        let report = await ContractProber(live: HangingTransport(), contracts: [contract], states: nil, deadline: .milliseconds(200)).probe(
            filter: "wrong password")
        // The hang is cut off by the deadline (the generous bound allows for a loaded machine).
        #expect(ContinuousClock.now - start < .seconds(60))
        let failures = report.interactions.flatMap(\.variants).filter { !$0.passed }
        #expect(failures.map(\.name) == ["a body that is not JSON"])
        #expect(failures.first?.failure == "no answer within 0.2 s")
        #expect(failures.first?.status == nil)
    }
}
