import ContractInterop
import ContractKit
import Foundation
import JOSE
import Testing

/// `contract export pact`: what each part of a contract becomes in a Pact v3 file.
@Suite struct PactExporterTests {
    static let notes = #"""
        name: Notes
        interactions:
          - name: a note is created
            given:
              - state: user exists
                params: { username: alice }
            request:
              method: POST
              path: /notes
              headers: { Authorization: "Bearer {{env.TOKEN}}" }
              query: { draft: { match: boolean, example: false } }
              json: { title: Shopping, tags: { match: each, of: { match: string }, min: 1, example: [food] } }
            response:
              status: 201
              strict: true
              headers:
                Cache-Control: { match: regex, pattern: "private, max-age=[0-9]+", example: "private, max-age=60" }
                Link: { match: regex, pattern: "<[^>]+>(, <[^>]+>)*", example: "</a>, </b>" }
              json:
                id: { match: uuid }
                created_at: { match: datetime }
                revision: { match: integer, min: 1, max: 99, example: 1 }
                items: { match: each, of: { kind: note, size: { match: number } }, max: 3 }
                token: { match: jwt, claims: { sub: { match: uuid } } }
                extra: { match: any }
            save:
              note: $.id
          - name: the note is read back
            request:
              method: GET
              path: /notes/{{note}}/versions/{version}
              path_params: { version: { match: integer, example: 2 } }
              headers: { X-Note: "{{note}}" }
              json: { id: "{{note}}", count: { match: integer, example: 3 } }
            response:
              status: 200
              headers: { Location: "/notes/{{note}}" }
              json: { id: "{{note}}", body: { match: regex, pattern: "(?s)a.b[.]c", example: "a\nb.c" } }
          - name: a JSON array is not a note
            request:
              method: POST
              path: /notes
              headers: { Content-Type: application/json }
              body: '["a", 1]'
            response:
              status: 400
              body: { match: string, min_length: 1, max_length: 80, example: "no" }
        """#

    func export(_ yaml: String = notes) throws -> PactExporter.Export {
        let (contract, diagnostics) = ContractLoader.parse(yaml: yaml, file: "notes.yaml")
        #expect(diagnostics == [])
        let notes = try #require(contract)
        let (other, _) = ContractLoader.parse(
            yaml:
                "name: Other\ninteractions:\n  - name: a note is created\n    request: { method: GET, path: /x }\n    response: { status: 204 }\n",
            file: "other.yaml")
        return PactExporter(consumer: "ios-app", provider: "notes").export([notes, try #require(other)])
    }

    func interaction(_ export: PactExporter.Export, _ index: Int) throws -> JSONValue {
        guard case .array(let interactions)? = export.document["interactions"] else { throw CancellationError() }
        return interactions[index]
    }

    @Test func theFileIsPactV3WithEveryInteractionInOrder() throws {
        let export = try export()
        #expect(export.document["consumer"] == ["name": "ios-app"])
        #expect(export.document["provider"] == ["name": "notes"])
        #expect(export.document["metadata"] == ["pactSpecification": ["version": "3.0.0"]])
        let descriptions = try (0..<4).map { try interaction(export, $0)["description"] }
        // Descriptions are unique: a name used twice gets its contract's name.
        #expect(descriptions == ["a note is created", "the note is read back", "a JSON array is not a note", "a note is created (Other)"])
    }

    @Test func requestsAreWhatTheVerifierSendsWithGeneratorsForSavedValues() throws {
        let created = try interaction(export(), 0)
        #expect(
            created["providerStates"] == [
                ["name": "values saved by earlier interactions", "params": ["contract": "Notes", "interaction": "a note is created"]],
                ["name": "user exists", "params": ["username": "alice"]],
            ])
        let request = try #require(created["request"])
        #expect(request["method"] == "POST")
        #expect(request["path"] == "/notes")
        #expect(request["query"] == ["draft": ["false"]])
        #expect(request["headers"] == ["Authorization": "Bearer env.TOKEN", "Content-Type": "application/json"])
        #expect(request["body"] == ["title": "Shopping", "tags": ["food"]])
        #expect(request["generators"] == ["header": ["Authorization": ["type": "ProviderState", "expression": "Bearer ${env.TOKEN}"]]])
        #expect(request["matchingRules"]?["query"] == ["draft": ["combine": "AND", "matchers": [["match": "type"]]]])
        #expect(request["matchingRules"]?["body"]?["$.tags"] == ["combine": "AND", "matchers": [["match": "type", "min": 1]]])

        let read = try interaction(export(), 1)["request"]
        #expect(read?["path"] == "/notes/3f2504e0-4f89-41d3-9a0c-0305e82c3301/versions/2")
        #expect(
            read?["matchingRules"]?["path"] == [
                "combine": "AND", "matchers": [["match": "regex", "regex": #"\A(?:/notes/[^/]+/versions/[^/]+)\z"#]],
            ])
        #expect(
            read?["generators"]
                == [
                    "path": ["type": "ProviderState", "expression": "/notes/${note}/versions/2"],
                    "header": ["X-Note": ["type": "ProviderState", "expression": "${note}"]],
                    "body": ["$.id": ["type": "ProviderState", "expression": "${note}"]],
                ]
        )
        #expect(read?["body"] == ["id": "3f2504e0-4f89-41d3-9a0c-0305e82c3301", "count": 3])
    }

    @Test func responseMatchersBecomeAnchoredRules() throws {
        let response = try #require(try interaction(export(), 0)["response"])
        #expect(response["status"] == 201)
        let rules = try #require(response["matchingRules"]?["body"])
        func matchers(_ path: String) -> JSONValue? { rules[path]?["matchers"] }
        #expect(
            matchers("$.id") == [
                ["match": "regex", "regex": #"\A(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\z"#]
            ])
        #expect(matchers("$.revision") == [["match": "integer"]])
        #expect(matchers("$.token") == [["match": "regex", "regex": #"\A(?:[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)\z"#]])
        // `each`: type with its bounds; below it, literals keep equality under Pact's cascading type.
        #expect(matchers("$.items") == [["match": "type", "max": 3]])
        #expect(matchers("$.items[*].kind") == [["match": "equality"]])
        #expect(matchers("$.items[*].size") == [["match": "number"]])
        #expect(response["body"]?["items"] == [["kind": "note", "size": .number(1)]])
        #expect(response["body"]?["extra"] == nil)
        // A JWT example carries claims that satisfy the contract's.
        guard case .string(let token)? = response["body"]?["token"] else { throw CancellationError() }
        let payload = try JSONValue(parsing: try #require(Base64URL.decode(token.split(separator: ".")[1])))
        #expect(payload == ["sub": "3f2504e0-4f89-41d3-9a0c-0305e82c3301"])
    }

    @Test func aHeaderRegexOverCommasGetsARulePerPart() throws {
        let response = try #require(try interaction(export(), 0)["response"])
        #expect(response["headers"]?["Cache-Control"] == "private, max-age=60")
        let rules = try #require(response["matchingRules"]?["header"])
        #expect(rules["Cache-Control[0]"]?["matchers"] == [["match": "regex", "regex": #"\A(?:private)\z"#]])
        #expect(rules["Cache-Control[1]"]?["matchers"] == [["match": "regex", "regex": #"\A(?:max-age=[0-9]+)\z"#]])
        // A comma inside a group cannot be split: the parts are only checked to be there.
        #expect(rules["Link"]?["matchers"] == [["match": "type"]])
    }

    @Test func savedValuesInResponsesAreCheckedByShapeAndDotAllBecomesAClass() throws {
        let response = try #require(try interaction(export(), 1)["response"])
        let rules = try #require(response["matchingRules"])
        #expect(
            rules["body"]?["$.id"]?["matchers"] == [
                ["match": "regex", "regex": #"\A(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\z"#]
            ])
        #expect(rules["header"]?["Location"]?["matchers"] == [["match": "regex", "regex": #"\A(?:/notes/[\s\S]+)\z"#]])
        #expect(rules["body"]?["$.body"]?["matchers"] == [["match": "regex", "regex": #"\A(?:a[\s\S]b[.]c)\z"#]])
    }

    @Test func jsonTextGoesAsJSONAndTextBodiesGetARootRule() throws {
        let array = try interaction(export(), 2)
        #expect(array["request"]?["body"] == ["a", 1])
        #expect(array["response"]?["body"] == "no")
        #expect(
            array["response"]?["matchingRules"]?["body"] == [
                "$": ["combine": "AND", "matchers": [["match": "regex", "regex": #"\A(?:[\s\S]{1,80})\z"#]]]
            ])
    }

    @Test func whatPactCannotCheckIsNotedPerInteraction() throws {
        let notes = try export().notes.map(\.description)
        #expect(
            notes.contains(
                "notes.yaml:a note is created: response $.revision: Pact has no numeric bounds, so the minimum 1 and maximum 99 are not checked"
            ))
        #expect(notes.contains("notes.yaml:a note is created: response is strict: Pact allows keys the contract does not list"))
        #expect(
            notes.contains(
                "notes.yaml:a note is created: response $.token is a JWT whose claims sub the contract checks: Pact checks its shape only"))
        #expect(
            notes.contains(
                "notes.yaml:a note is created: response $.extra may hold any value: Pact has no rule for that, so it is left out and its presence is not checked"
            ))
        #expect(
            notes.contains(
                "notes.yaml:a note is created: response header Link: Pact matches each comma-separated part of it alone, so only its presence is checked"
            ))
        #expect(
            notes.contains(
                "notes.yaml:the note is read back: response $.id must equal the value saved as {{note}}: Pact checks its shape only"))
        #expect(
            notes.contains(
                "notes.yaml:the note is read back: response header Location holds the value saved as {{note}}: Pact checks the text around it only"
            ))
    }
}
