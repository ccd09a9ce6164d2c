import ContractInterop
import ContractKit
import Foundation
import Testing

/// A document of one `GET /thing` whose 200 answers `schema` (JSON text), with `example`.
private func document(schema: String, example: String? = nil, version: String = "3.1.0") -> Data {
    let media = example.map { #"{"schema": \#(schema), "example": \#($0)}"# } ?? #"{"schema": \#(schema)}"#
    return Data(
        #"""
        {"openapi": "\#(version)", "info": {"title": "T", "version": "1"},
         "paths": {"/thing": {"get": {"operationId": "getThing", "responses": {"200": {"description": "ok", "content": {"application/json": \#(media)}}}}}}}
        """#.utf8
    )
}

/// The response body matcher the import of `schema` gives, and the notes.
private func responseBody(_ schema: String, example: String? = nil, version: String = "3.1.0") throws -> (Matcher, [String]) {
    let result = try OpenAPIImporter.importDocument(document(schema: schema, example: example, version: version), file: "doc.json")
    let interaction = try #require(result.files.first?.contract.interactions.first)
    guard case .json(let body) = interaction.response.body else {
        Issue.record("no JSON body")
        return (Matcher(.any), [])
    }
    return (body, result.notes.map(\.description))
}

private func member(_ matcher: Matcher, _ key: String) -> Matcher? {
    if case .object(let members) = matcher.kind { members[key] } else { nil }
}

@Suite struct OpenAPIImporterSchemaTests {
    @Test func formatsBecomeTheirMatchers() throws {
        let (body, _) = try responseBody(
            #"{"type": "object", "required": ["id", "at", "mail", "site", "day"], "properties": {"id": {"type": "string", "format": "uuid"}, "at": {"type": "string", "format": "date-time"}, "mail": {"type": "string", "format": "email"}, "site": {"type": "string", "format": "uri"}, "day": {"type": "string", "format": "date"}}}"#
        )
        #expect(member(body, "id")?.kind == .uuid)
        #expect(member(body, "at")?.kind == .datetime)
        guard member(body, "mail")?.kind.as(RegexMatcher.self) != nil else {
            Issue.record("email is not a regex")
            return
        }
        #expect(member(body, "mail")?.example == .string("user@example.com"))
        #expect(member(body, "site")?.example == .string("https://example.com/"))
        #expect(member(body, "day")?.mismatches(in: .string("2026-11-24")).isEmpty == true)
    }

    @Test func boundsCarry() throws {
        let (body, _) = try responseBody(
            #"{"type": "object", "required": ["n", "x", "s"], "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 10}, "x": {"type": "number", "minimum": 0.5}, "s": {"type": "string", "minLength": 2, "maxLength": 8}}}"#
        )
        #expect(member(body, "n")?.kind == .integer(min: 1, max: 10))
        #expect(member(body, "x")?.kind == .number(min: 0.5, max: nil))
        #expect(member(body, "s")?.kind == .string(minLength: 2, maxLength: 8))
        let (exclusive, _) = try responseBody(#"{"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 5}"#)
        #expect(exclusive.kind == .integer(min: 1, max: 4))
    }

    @Test func enumsAndConsts() throws {
        let (body, notes) = try responseBody(
            #"{"type": "object", "required": ["kind", "status", "level"], "properties": {"kind": {"const": "pet"}, "status": {"type": "string", "enum": ["available", "sold"]}, "level": {"type": "integer", "enum": [1, 2]}}}"#,
            example: #"{"kind": "pet", "status": "sold", "level": 2}"#
        )
        #expect(member(body, "kind")?.kind == .literal(.string("pet")))
        #expect(
            member(body, "status")
                == Matcher(.oneOf([Matcher(.literal(.string("available"))), Matcher(.literal(.string("sold")))]), example: .string("sold")))
        #expect(
            member(body, "level")
                == Matcher(.oneOf([Matcher(.literal(.integer(1))), Matcher(.literal(.integer(2)))]), example: .integer(2)))
        #expect(notes.isEmpty)
    }

    @Test func patternsAreAnchoredWithTheirExample() throws {
        let (body, _) = try responseBody(#"{"type": "string", "pattern": "^[A-Z]{3}$", "examples": ["ABC"]}"#)
        #expect(body.kind == .regex("[A-Z]{3}"))
        #expect(body.example == .string("ABC"))
        let (open, _) = try responseBody(#"{"type": "string", "pattern": "[0-9]", "examples": ["a1"]}"#)
        #expect(open.kind == .regex(".*(?:[0-9]).*"))
        let (missing, notes) = try responseBody(#"{"type": "string", "pattern": "^x+$"}"#)
        #expect(missing.kind == .string(minLength: nil, maxLength: nil))
        #expect(notes.contains { $0.contains("no example") })
    }

    @Test func arraysBecomeEachWithTheirCounts() throws {
        let (body, _) = try responseBody(#"{"type": "array", "minItems": 1, "maxItems": 5, "items": {"type": "string", "format": "uuid"}}"#)
        #expect(body.kind == .each(of: Matcher(.uuid), min: 1, max: 5))
    }

    @Test func propertiesNotRequiredAreOptionalKeys() throws {
        let (body, notes) = try responseBody(
            #"{"type": "object", "required": ["id"], "additionalProperties": false, "properties": {"id": {"type": "integer"}, "tag": {"type": "string"}, "note": {"type": "string"}}}"#,
            example: #"{"id": 7, "tag": "dog"}"#
        )
        #expect(member(body, "id") == Matcher(.integer(min: nil, max: nil), example: .integer(7)))
        #expect(member(body, "tag") == Matcher(.string(minLength: nil, maxLength: nil), example: .string("dog"), optional: true))
        #expect(member(body, "note") == Matcher(.string(minLength: nil, maxLength: nil), optional: true))
        #expect(notes.isEmpty)
    }

    @Test func closedObjectsMakeAStrictResponse() throws {
        let result = try OpenAPIImporter.importDocument(
            document(
                schema: #"{"type": "object", "additionalProperties": false, "required": ["a"], "properties": {"a": {"type": "boolean"}}}"#),
            file: "doc.json"
        )
        #expect(result.files.first?.contract.interactions.first?.response.strict == true)
    }

    @Test func compositionsAndNullables() throws {
        let (either, notes) = try responseBody(#"{"oneOf": [{"type": "string"}, {"type": "integer"}]}"#)
        #expect(either.kind == .oneOf([Matcher(.string(minLength: nil, maxLength: nil)), Matcher(.integer(min: nil, max: nil))]))
        #expect(notes.contains { $0.contains("oneOf: matched as one_of") })
        let (nullable, _) = try responseBody(#"{"type": ["string", "null"], "format": "uuid"}"#)
        #expect(nullable.kind == .oneOf([Matcher(.uuid), Matcher(.null)]))
        let (not, notNotes) = try responseBody(#"{"not": {"type": "string"}}"#)
        #expect(not.kind == .any)
        #expect(notNotes.contains { $0.contains("not: matched as any value") })
        let (merged, _) = try responseBody(
            #"{"allOf": [{"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}}, {"type": "object", "required": ["b"], "properties": {"b": {"type": "integer"}}}]}"#
        )
        #expect(member(merged, "a") != nil && member(merged, "b") != nil)
    }
}

@Suite struct OpenAPIImporterDocumentTests {
    static let petstore30 = """
        openapi: 3.0.3
        info: { title: Petstore, version: 1.0.0 }
        servers: [{ url: "https://petstore.example.com/v1" }]
        paths:
          /pets/{petId}:
            get:
              operationId: showPetById
              tags: [pets]
              x-contract-given: [{ state: a pet exists, params: { id: 7 } }]
              parameters:
                - { name: petId, in: path, required: true, schema: { type: integer, minimum: 1 }, example: 7 }
                - { name: verbose, in: query, required: false, schema: { type: boolean } }
                - { name: session, in: cookie, required: false, schema: { type: string } }
              responses:
                "200":
                  description: the pet
                  content:
                    application/json:
                      schema: { $ref: "#/components/schemas/Pet" }
                      example: { id: 7, name: Rex, tag: null }
                default:
                  description: an error
                  content: { application/json: { schema: { $ref: "#/components/schemas/Error" } } }
          /pets:
            post:
              summary: Add a pet
              tags: [pets]
              security: [{ oauth: [write] }]
              requestBody:
                required: true
                content:
                  application/json:
                    schema: { type: object, required: [name], properties: { name: { type: string, minLength: 1 } } }
                    example: { name: Rex }
              responses:
                "201": { description: created, content: { application/json: { schema: { $ref: "#/components/schemas/Pet" } } } }
              callbacks:
                onAdopted: { "{$request.body#/url}": { post: { responses: { "200": { description: ok } } } } }
            put:
              operationId: uploadPets
              tags: [pets]
              requestBody: { content: { text/csv: { schema: { type: string } } } }
              responses: { "204": { description: done } }
        components:
          securitySchemes:
            oauth: { type: oauth2, flows: { implicit: { authorizationUrl: "https://example.com/auth", scopes: { write: w } } } }
          schemas:
            Pet:
              type: object
              required: [id, name]
              properties:
                id: { type: integer, format: int64 }
                name: { type: string }
                tag: { type: string, nullable: true }
            Error:
              type: object
              required: [code]
              properties: { code: { type: integer } }
        """

    @Test func openAPI30() throws {
        let result = try OpenAPIImporter.importDocument(Data(Self.petstore30.utf8), file: "petstore.yaml")
        #expect(result.version == "3.0.3")
        #expect(result.files.map(\.name) == ["pets.yaml"])
        let interactions = try #require(result.files.first?.contract.interactions)
        #expect(interactions.map(\.name) == ["showPetById 200", "uploadPets 204", "Add a pet 201"])
        let show = interactions[0]
        #expect(show.request.path.text == "/v1/pets/{petId}")  // the server's path first
        #expect(
            result.notes.contains { $0.description == "petstore.yaml: servers[0]: the operations' paths start with the server's path /v1" })
        #expect(show.request.path.params["petId"] == Matcher(.integer(min: 1, max: nil), example: .integer(7)))
        #expect(show.request.query.isEmpty)
        #expect(show.given == [ProviderStateUse(state: "a pet exists", params: ["id": .integer(7)])])
        guard case .json(let pet) = show.response.body else {
            Issue.record("no body")
            return
        }
        #expect(member(pet, "name")?.example == .string("Rex"))
        // Not required, and nullable: an optional key, a string or null.
        #expect(
            member(pet, "tag")
                == Matcher(.oneOf([Matcher(.string(minLength: nil, maxLength: nil)), Matcher(.null)]), example: .null, optional: true))
        #expect(result.states == ["a pet exists"])
        #expect(result.configuration.contains("a pet exists:"))
        #expect(result.configuration.contains("https://petstore.example.com/v1"))
        #expect(ContractLoader.parseProvider(yaml: result.configuration, file: "contract.yaml").1.isEmpty)
        // What the written files say reads back as the same contract.
        let file = try #require(result.files.first)
        let (reread, problems) = ContractLoader.parse(yaml: file.yaml, file: file.name)
        #expect(problems.isEmpty, "\(problems)")
        #expect(reread?.interactions.map(\.request) == interactions.map(\.request))
    }

    @Test func notesForWhatIsNotCarried() throws {
        let result = try OpenAPIImporter.importDocument(Data(Self.petstore30.utf8), file: "petstore.yaml")
        let notes = result.notes.map(\.description)
        let expected = [
            "petstore.yaml: GET /pets/{petId}: the default response is not carried",
            "petstore.yaml: GET /pets/{petId} query parameter verbose: optional parameter left out",
            "petstore.yaml: GET /pets/{petId} cookie parameter session: cookie parameters are not carried",
            "petstore.yaml: POST /pets: security scheme oauth (oauth2) is not carried",
            "petstore.yaml: PUT /pets request body: a body of text/csv is not carried",
            "petstore.yaml: POST /pets: callbacks (onAdopted) are not carried",
        ]
        for prefix in expected {
            #expect(notes.contains { $0.hasPrefix(prefix) }, "no note \(prefix) in \(notes)")
        }
    }

    @Test func aDocumentWithoutOperationsSaysSo() throws {
        let result = try OpenAPIImporter.importDocument(
            Data(#"{"openapi": "3.1.0", "info": {"title": "T", "version": "1"}}"#.utf8), file: "empty.json")
        #expect(result.files.isEmpty)
        #expect(
            result.notes.map(\.description) == ["empty.json: paths: no operation with a response of one status: no contract file written"])
    }

    @Test(arguments: [
        ("https://api.example.com/v1/", "/v1"), ("https://api.example.com", ""), ("/api", "/api"), ("http://localhost:8080/", ""),
        ("https://{region}.example.com/v2", "/v2"),
    ])
    func serverPaths(url: String, path: String) {
        #expect(OpenAPIImporter.basePath(of: url) == path)
    }

    @Test func openAPI31() throws {
        let yaml = """
            openapi: 3.1.0
            info: { title: Notes, version: "2" }
            paths:
              /notes/{id}:
                put:
                  operationId: putNote
                  security: [{ bearerAuth: [] }]
                  parameters: [{ name: id, in: path, required: true, schema: { type: string, format: uuid } }]
                  requestBody:
                    content: { application/json: { schema: { type: object, required: [title], properties: { title: { type: string, examples: [Groceries] } } } } }
                  responses:
                    "201":
                      description: stored
                      headers: { Location: { required: true, schema: { type: string } } }
                      content:
                        application/json:
                          schema: { type: object, required: [id, tags], properties: { id: { type: string, format: uuid }, tags: { type: [array, "null"], items: { type: string } } } }
            components:
              securitySchemes: { bearerAuth: { type: http, scheme: bearer } }
            """
        let result = try OpenAPIImporter.importDocument(Data(yaml.utf8), file: "notes.yaml")
        let interaction = try #require(result.files.first?.contract.interactions.first)
        #expect(result.files.first?.name == "notes.yaml")
        #expect(interaction.request.path.params["id"]?.kind == .uuid)
        #expect(interaction.request.headers.map(\.name) == ["Authorization"])
        #expect(interaction.request.headers.first?.value == Matcher(.literal(.string("Bearer {{env.BEARER_AUTH}}"))))
        #expect(
            interaction.request.body
                == .json(Matcher(.object(["title": Matcher(.string(minLength: nil, maxLength: nil), example: .string("Groceries"))]))))
        #expect(interaction.response.headers["Location"]?.kind == .string(minLength: nil, maxLength: nil))
        guard case .json(let body) = interaction.response.body else {
            Issue.record("no body")
            return
        }
        #expect(member(body, "id")?.kind == .uuid)
        #expect(
            member(body, "tags")?.kind
                == .oneOf([Matcher(.each(of: Matcher(.string(minLength: nil, maxLength: nil)), min: nil, max: nil)), Matcher(.null)]))
    }

    @Test(arguments: [
        ("openapi: 3.1.0\ninfo: [oops", "line"),
        (
            #"{"openapi": "3.1.0", "info": {"title": "T", "version": "1"}, "paths": {"/a": {"get": {"responses": {"200": {"description": 5}}}}}}"#,
            "paths"
        ),
        (#"{"openapi": "3.1.0", "info": {"title": "T", "version": "1"}, "paths": {"/a": {"get": {"responses": 5}}}}"#, "paths"),
        (#"{"openapi": "3.0.0", "info": {"version": "1"}, "paths": {}}"#, "info"),
        (#"{"swagger": "2.0"}"#, "swagger"),
        (#"{"openapi": "3.1.0", "info": {"#, "line"),
        ("just text", ""),
    ])
    func brokenDocumentsSayWhere(text: String, location: String) {
        do {
            _ = try OpenAPIImporter.importDocument(Data(text.utf8), file: "broken.yaml")
            Issue.record("\(text) imported")
        } catch {
            #expect(error.description.hasPrefix("broken.yaml: "))
            #expect(location.isEmpty ? error.location.isEmpty : error.location.lowercased().contains(location), "\(error)")
            #expect(!error.message.isEmpty)
        }
    }
}

@Suite struct OpenAPIRoundTripTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// authd's contracts exported and imported again are the same contracts: files, names,
    /// order, requests, statuses, states and saves.
    @Test func authdsExportImportsAsItsContracts() throws {
        let suite = ContractLoader.load(directory: Self.root.appendingPathComponent("contracts").path)
        #expect(suite.diagnostics.isEmpty)
        let document = OpenAPIExporter(title: "authd", version: "1.0.0").document(for: suite.contracts)
        let result = try OpenAPIImporter.importDocument(Data(try document.prettyText().utf8), file: "openapi.json")
        #expect(result.files.allSatisfy { $0.carried })
        #expect(result.files.map(\.name) == suite.contracts.map { ($0.file as NSString).lastPathComponent })
        for (original, imported) in zip(suite.contracts, result.files.map(\.contract)) {
            #expect(imported.name == original.name)
            #expect(imported.interactions.map(\.name) == original.interactions.map(\.name))
            #expect(imported.interactions.map(\.request) == original.interactions.map(\.request))
            #expect(imported.interactions.map(\.response) == original.interactions.map(\.response))
            #expect(imported.interactions.map(\.given) == original.interactions.map(\.given))
            #expect(imported.interactions.map(\.save) == original.interactions.map(\.save))
            #expect(imported.interactions.map(\.delivers.count) == original.interactions.map(\.delivers.count))
        }
    }

    /// The carried interactions read through OpenAPIKit too (a document that does not start
    /// with `{` is not read by the shortcut that skips its schemas).
    @Test func carriedInteractionsThroughOpenAPIKit() throws {
        let suite = ContractLoader.load(directory: Self.root.appendingPathComponent("contracts").path)
        let some = suite.contracts.filter { ["login-limits.yaml", "routes.yaml"].contains(($0.file as NSString).lastPathComponent) }
        let document = OpenAPIExporter(title: "authd", version: "1.0.0").document(for: some)
        let result = try OpenAPIImporter.importDocument(Data(("\n" + (try document.prettyText())).utf8), file: "openapi.json")
        #expect(result.files.map(\.name) == ["login-limits.yaml", "routes.yaml"])
        for (original, imported) in zip(some, result.files.map(\.contract)) {
            #expect(imported.interactions.map(\.name) == original.interactions.map(\.name))
            #expect(imported.interactions.map(\.request) == original.interactions.map(\.request))
            #expect(imported.interactions.map(\.response) == original.interactions.map(\.response))
        }
    }

    /// authd's served document (Sources/AuthServer/Operations/openapi.json, which `scripts/openapi`
    /// exports without the interactions as written) imports from its schemas alone: an
    /// interaction per operation and declared status, in files that load.
    @Test func authdsServedDocumentImportsFromItsSchemas() throws {
        let data = try Data(contentsOf: Self.root.appendingPathComponent("Sources/AuthServer/Operations/openapi.json"))
        let result = try OpenAPIImporter.importDocument(data, file: "openapi.json")
        #expect(result.files.allSatisfy { !$0.carried })
        var declared = 0
        if case .object(let document) = try JSONValue(parsing: data), case .object(let paths)? = document["paths"] {
            for case .object(let operations) in paths.values {
                for case .object(let operation) in operations.values {
                    if case .object(let responses)? = operation["responses"] { declared += responses.count }
                }
            }
        }
        #expect(result.files.flatMap(\.contract.interactions).count == declared)
        for file in result.files {
            #expect(ContractLoader.parse(yaml: file.yaml, file: file.name).1.isEmpty)
        }
        #expect(result.configuration.contains("provider:"))
    }

    /// Exported without what it carries (`--no-interactions`), a document's schemas still give
    /// an interaction per operation and status it declares, in files that load.
    @Test func authdsSchemasWithoutWhatIsCarried() throws {
        let suite = ContractLoader.load(directory: Self.root.appendingPathComponent("contracts").path)
        let some = suite.contracts.filter { ["login.yaml", "session-list.yaml"].contains(($0.file as NSString).lastPathComponent) }
        var exporter = OpenAPIExporter(title: "authd", version: "1.0.0")
        exporter.carriesInteractions = false
        let document = exporter.document(for: some)
        let text = try document.prettyText()
        #expect(!text.contains(CarriedInteractions.key))
        let result = try OpenAPIImporter.importDocument(Data(text.utf8), file: "openapi.json")
        var declared: [String] = []
        if case .object(let paths)? = document["paths"] {
            for (path, item) in paths {
                guard case .object(let operations) = item else { continue }
                for (method, operation) in operations {
                    guard case .object(let responses)? = operation["responses"] else { continue }
                    declared += responses.keys.map { "\(method.uppercased()) \(path) \($0)" }
                }
            }
        }
        let imported = result.files.flatMap(\.contract.interactions).map {
            "\($0.request.method) \($0.request.path.text) \($0.response.status)"
        }
        #expect(imported.sorted() == declared.sorted())
        #expect(result.files.allSatisfy { !$0.carried })
        for file in result.files {
            let problems = ContractLoader.parse(yaml: file.yaml, file: file.name).1
            #expect(problems.isEmpty, "\(problems)")
        }
    }
}
