import ContractInterop
import ContractKit
import Foundation
import Testing

/// `contract export openapi`: what each part of a contract becomes in the document.
@Suite struct OpenAPIExporterTests {
    static let notes = """
        name: Notes
        interactions:
          - name: a note is created
            request:
              method: POST
              path: /notes
              headers: { Authorization: "Bearer {{env.TOKEN}}", X-Client: { match: string, min_length: 2, example: ios } }
              query: { draft: { match: boolean, example: false } }
              json: { title: Shopping, tags: { match: each, of: { match: string }, min: 1, example: [food] } }
            response:
              status: 201
              strict: true
              headers: { Location: { match: regex, pattern: "/notes/[0-9a-f-]+", example: "/notes/0b6c5a3e-2f1d-4a49-9c55-0f8e3c2d1a7b" } }
              json:
                id: { match: uuid }
                title: Shopping
                created_at: { match: datetime }
                revision: { match: integer, min: 1, max: 99, example: 1 }
            save:
              note: $.id
          - name: the note is read back
            request:
              method: GET
              path: /notes/{id}
              path_params: { id: { match: uuid, example: "0b6c5a3e-2f1d-4a49-9c55-0f8e3c2d1a7b" } }
            response:
              status: 200
              json: { id: "{{note}}", title: { match: string, min_length: 1 } }
          - name: a note without a title is refused
            request:
              method: POST
              path: /notes
              json: { title: 42 }
            response:
              status: 400
              json: { error: invalid_request, error_description: { match: string, min_length: 1 } }
          - name: an unknown note is not found
            request:
              method: GET
              path: /notes/{id}
              path_params: { id: { match: uuid, example: "00000000-0000-4000-8000-000000000000" } }
            response:
              status: 404
              json: { error: not_found, error_description: { match: string } }
          - name: an unknown route is not an operation
            request: { method: GET, path: /nowhere }
            response: { status: 404, json: { error: not_found, error_description: { match: string } } }
        """

    func document() throws -> JSONValue {
        let (contract, diagnostics) = ContractLoader.parse(yaml: Self.notes, file: "notes.yaml")
        #expect(diagnostics == [])
        return OpenAPIExporter(title: "Notes", version: "2.0.0").document(for: [try #require(contract)])
    }

    @Test func operationsComeFromPathsAndMethodsButNotFromAbsentRoutes() throws {
        let document = try document()
        #expect(document["openapi"] == "3.1.0")
        #expect(document["info"] == ["title": "Notes", "version": "2.0.0"])
        guard case .object(let paths)? = document["paths"] else { throw Failure("no paths") }
        #expect(Set(paths.keys) == ["/notes", "/notes/{id}"])
        #expect(paths["/notes"]?["post"]?["operationId"] == "postNotes")
        #expect(paths["/notes/{id}"]?["get"]?["operationId"] == "getNotesById")
        #expect(paths["/notes"]?["post"]?["tags"] == ["Notes"])
    }

    @Test func requestsAreDescribedByTheInteractionsThatSucceed() throws {
        let post = try #require(try document()["paths"]?["/notes"]?["post"])
        let schema = try #require(post["requestBody"]?["content"]?["application/json"]?["schema"])
        // The refused body (title: 42) is not part of what may be sent.
        #expect(schema["properties"]?["title"] == ["type": "string", "minLength": 1, "examples": ["Shopping"]])
        #expect(schema["properties"]?["tags"] == ["type": "array", "items": ["type": "string"], "minItems": 1, "examples": [["food"]]])
        #expect(schema["additionalProperties"] == false)
        #expect(schema["required"] == ["tags", "title"])
        #expect(post["requestBody"]?["required"] == true)
        #expect(post["security"] == [["bearerAuth": []]])
        let parameters = try #require(post["parameters"])
        #expect(
            parameters == [
                ["name": "draft", "in": "query", "required": true, "schema": ["type": "boolean", "examples": [false]]],
                ["name": "X-Client", "in": "header", "required": true, "schema": ["type": "string", "minLength": 2, "examples": ["ios"]]],
            ])
    }

    @Test func pathParametersComeFromTheirMatchers() throws {
        let get = try #require(try document()["paths"]?["/notes/{id}"]?["get"])
        #expect(
            get["parameters"] == [
                [
                    "name": "id", "in": "path", "required": true,
                    "schema": ["type": "string", "format": "uuid", "examples": ["0b6c5a3e-2f1d-4a49-9c55-0f8e3c2d1a7b"]],
                ]
            ])
        // A saved value is described by the matcher it was saved from.
        let id = get["responses"]?["200"]?["content"]?["application/json"]?["schema"]?["properties"]?["id"]
        #expect(id?["format"] == "uuid")
        #expect(id?["description"] == "The value saved as {{note}} by an earlier interaction.")
    }

    /// A literal array: one `items` schema joining its elements (never `prefixItems`, which
    /// schemathesis misreads), its length kept for a request and not for a response.
    @Test func aLiteralArrayIsItemsJoiningItsElements() throws {
        let list = Matcher(.array([Matcher(.literal(.string("a"))), Matcher(.literal(.string("b")))]))
        let response = list.jsonSchema(role: .response)
        #expect(response["prefixItems"] == nil)
        #expect(response["items"] == ["type": "string", "enum": ["a", "b"]])
        #expect(response["minItems"] == nil && response["maxItems"] == nil)
        let request = list.jsonSchema(role: .request)
        #expect(request["minItems"] == 2 && request["maxItems"] == 2)
        #expect(request["prefixItems"] == nil)
    }

    @Test func responsesCarryTheMatchersAsSchemas() throws {
        let created = try #require(try document()["paths"]?["/notes"]?["post"]?["responses"]?["201"])
        let schema = try #require(created["content"]?["application/json"]?["schema"])
        #expect(schema["additionalProperties"] == false)
        #expect(schema["properties"]?["id"] == ["type": "string", "format": "uuid"])
        #expect(schema["properties"]?["created_at"] == ["type": "string", "format": "date-time"])
        #expect(schema["properties"]?["title"] == ["type": "string", "const": "Shopping"])
        #expect(schema["properties"]?["revision"] == ["type": "integer", "minimum": 1, "maximum": 99, "examples": [1]])
        #expect(created["headers"]?["Location"]?["schema"]?["pattern"] == "^(?:/notes/[0-9a-f-]+)$")
        #expect(created["description"] == "- a note is created")
    }

    @Test func errorBodiesShareOneComponent() throws {
        let document = try document()
        let error = try #require(document["components"]?["schemas"]?["Error"])
        #expect(error["required"] == ["error", "error_description"])
        #expect(error["properties"]?["error"] == ["type": "string", "enum": ["invalid_request", "not_found"]])
        #expect(
            document["paths"]?["/notes"]?["post"]?["responses"]?["400"]?["content"]?["application/json"]?["schema"] == [
                "$ref": "#/components/schemas/Error"
            ])
        #expect(document["components"]?["securitySchemes"]?["bearerAuth"] == ["type": "http", "scheme": "bearer"])
    }

    @Test func patternsWithInlineFlagsBecomeDescriptions() {
        let schema = Matcher(.regex("(?s)a.*b")).jsonSchema(role: .response)
        #expect(schema["pattern"] == nil)
        #expect(schema["description"] == "Matches the regular expression (?s)a.*b.")
    }

    @Test func unionsKeepWhatBothAllow() {
        let union = JSONSchemaUnion.of(
            ["type": "object", "properties": ["a": ["type": "string", "minLength": 3]], "required": ["a"], "additionalProperties": false],
            [
                "type": "object", "properties": ["a": ["type": "string", "minLength": 1], "b": ["type": "integer"]],
                "required": ["a", "b"],
            ]
        )
        #expect(
            union == [
                "type": "object", "properties": ["a": ["type": "string", "minLength": 1], "b": ["type": "integer"]], "required": ["a"],
            ])
        #expect(JSONSchemaUnion.of(["type": "string"], ["type": "integer"]) == ["anyOf": [["type": "string"], ["type": "integer"]]])
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
