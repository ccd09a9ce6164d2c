import ContractInterop
import ContractKit
import Foundation
import Testing

/// `contract.yaml`'s `openapi: also_answers:`: a status a route answers that its own
/// interactions cannot show is documented with the responses other routes show for it.
@Suite struct AlsoAnswersTests {
    static let contract = """
        name: Notes
        interactions:
          - name: a note is created
            request: { method: POST, path: /notes, json: { title: Shopping } }
            response: { status: 201, json: { id: { match: uuid } } }
          - name: the eleventh search is throttled
            request: { method: GET, path: /search }
            response:
              status: 429
              headers: { Retry-After: { match: regex, pattern: "[1-9][0-9]*", example: "60" } }
              json: { error: too_many_attempts }
        """

    func contracts() throws -> [Contract] {
        let (contract, diagnostics) = ContractLoader.parse(yaml: Self.contract, file: "notes.yaml")
        #expect(diagnostics == [])
        return [try #require(contract)]
    }

    @Test func aRouteIsDocumentedWithAStatusShownElsewhere() throws {
        var exporter = OpenAPIExporter(title: "Notes", version: "1")
        exporter.alsoAnswers = [.init(status: 429, method: "POST", path: "/notes")]
        #expect(exporter.undocumentable(in: try contracts()) == [])
        let document = exporter.document(for: try contracts())
        guard case .object(let root) = document, case .object(let paths)? = root["paths"], case .object(let notes)? = paths["/notes"],
            case .object(let post)? = notes["post"], case .object(let responses)? = post["responses"],
            case .object(let throttled)? = responses["429"]
        else {
            Issue.record("no 429 for POST /notes in \(document)")
            return
        }
        #expect(throttled["description"] == "- as GET /search answers: the eleventh search is throttled")
        guard case .object(let headers)? = throttled["headers"] else {
            Issue.record("no headers")
            return
        }
        #expect(headers["Retry-After"] != nil)
        // Not carried: `contract import openapi` gives back the contracts as they are.
        guard case .array(let carried)? = post[CarriedInteractions.key] else {
            Issue.record("no carried interactions")
            return
        }
        #expect(carried.count == 1)
    }

    @Test func aRouteOrAStatusNoInteractionShowsIsRefused() throws {
        var exporter = OpenAPIExporter(title: "Notes", version: "1")
        exporter.alsoAnswers = [.init(status: 429, method: "DELETE", path: "/notes"), .init(status: 503, method: "POST", path: "/notes")]
        #expect(
            exporter.undocumentable(in: try contracts()) == [
                "429 for DELETE /notes: no interaction has that route",
                "503 for POST /notes: no interaction of another route shows 503",
            ])
    }

    @Test func contractYAMLReadsIt() {
        let (provider, diagnostics) = ContractLoader.parseProvider(
            yaml: """
                provider: { base_url: "http://127.0.0.1:8080" }
                openapi:
                  also_answers:
                    429: [POST /notes, "get /search"]
                """,
            file: "contract.yaml")
        #expect(diagnostics == [])
        #expect(
            provider?.alsoAnswers == [
                .init(status: 429, method: "POST", path: "/notes"), .init(status: 429, method: "GET", path: "/search"),
            ])
        let (_, bad) = ContractLoader.parseProvider(
            yaml: """
                openapi:
                  also_answers:
                    4290: [POST /notes]
                    429: [notes]
                """,
            file: "contract.yaml")
        #expect(bad.map(\.line) == [3, 4])
        #expect(bad.first?.message.contains("100 to 599") == true)
        #expect(bad.last?.message.contains("a method and a path") == true)
    }
}
