import ContractInterop
import ContractKit
import Foundation
import Testing
import WebForms

/// What the exports and imports make of `form:`, `multipart:` and `basic_auth`.
@Suite struct FormExportTests {
    static let yaml = """
        name: OAuth
        interactions:
          - name: a client gets a token
            request:
              method: POST
              path: /oauth/token
              headers: { Authorization: { match: basic_auth, username: client-1, password: s3cret } }
              form:
                grant_type: client_credentials
                scope: { match: string, example: read, optional: true }
                tries: { match: integer, example: 2 }
            response:
              status: 200
              form:
                access_token: { match: string, min_length: 8, example: abcdefgh }
                token_type: bearer
            save: { token: response.form.access_token }
          - name: a note is posted
            request:
              method: POST
              path: /notes
              multipart:
                - name: file
                  filename: a.txt
                  body: hello
                - name: meta
                  json: { pinned: true }
            response: { status: 201 }
        """

    func contract() throws -> Contract {
        let (contract, diagnostics) = ContractLoader.parse(yaml: Self.yaml, file: "oauth.yaml")
        #expect(diagnostics == [])
        return try #require(contract)
    }

    @Test func pactGetsAFormBodyWithFieldRulesAndABasicRegex() throws {
        let export = PactExporter(consumer: "app", provider: "authd").export([try contract()])
        guard case .array(let interactions)? = export.document["interactions"] else {
            Issue.record("no interactions")
            return
        }
        let request = try #require(interactions[0]["request"])
        #expect(request["headers"]?["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(request["body"] == "grant_type=client_credentials&scope=read&tries=2")
        #expect(request["headers"]?["Authorization"] == .string(BasicCredentials.header(username: "client-1", password: "s3cret")))
        #expect(
            request["matchingRules"]?["header"]?["Authorization"]?["matchers"] == [
                ["match": "regex", "regex": #"\A(?:Basic [A-Za-z0-9+/=]+)\z"#]
            ])
        #expect(request["matchingRules"]?["body"]?["$.tries"]?["matchers"] == [["match": "integer"]])
        let response = try #require(interactions[0]["response"])
        #expect(response["headers"]?["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(response["body"] == "access_token=abcdefgh&token_type=bearer")
        let notes = export.notes.map(\.message)
        #expect(notes.contains { $0.contains("multipart") }, "\(notes)")
    }

    @Test func pactImportsAFormBackAsForm() throws {
        let export = PactExporter(consumer: "app", provider: "authd").export([try contract()])
        let result = PactImporter.importFiles([("oauth.json", Data(export.document.description.utf8))])
        let file = try #require(result.files.first)
        let (imported, diagnostics) = ContractLoader.parse(yaml: file.yaml, file: "imported.yaml")
        #expect(diagnostics == [], "\(file.yaml)")
        let interaction = try #require(imported?.interactions.first)
        guard case .form(let form) = interaction.request.body else {
            Issue.record("expected a form, got \(interaction.request.body)\n\(file.yaml)")
            return
        }
        #expect(form.field("grant_type") == Matcher(.literal(.string("client_credentials"))))
        #expect(form.field("tries")?.kind == .integer(min: nil, max: nil))
        guard case .form(let response) = interaction.response.body else {
            Issue.record("expected a form response\n\(file.yaml)")
            return
        }
        #expect(response.field("token_type") == Matcher(.literal(.string("bearer"))))
    }

    /// A token endpoint that a public client calls without credentials: Basic is optional there.
    @Test func openAPIMakesBasicOptionalWhereARequestSucceedsWithoutCredentials() throws {
        let yaml = """
            name: Token
            interactions:
              - name: a confidential client
                request:
                  method: POST
                  path: /oauth/token
                  headers: { Authorization: { match: basic_auth, username: c, password: "a-secret" } }
                  form: { grant_type: client_credentials }
                response: { status: 200 }
              - name: a public client
                request:
                  method: POST
                  path: /oauth/token
                  form: { grant_type: refresh_token }
                response: { status: 200 }
            """
        let (parsed, diagnostics) = ContractLoader.parse(yaml: yaml, file: "token.yaml")
        #expect(diagnostics == [])
        let document = OpenAPIExporter(title: "t", version: "1").document(for: [try #require(parsed)])
        #expect(document["paths"]?["/oauth/token"]?["post"]?["security"] == [["basicAuth": []], [:]])
    }

    @Test func openAPIGivesFormAndMultipartMediaTypesAndABasicScheme() throws {
        let document = OpenAPIExporter(title: "t", version: "1").document(for: [try contract()])
        let operation = try #require(document["paths"]?["/oauth/token"]?["post"])
        let schema = operation["requestBody"]?["content"]?["application/x-www-form-urlencoded"]?["schema"]
        #expect(schema?["type"] == "object")
        #expect(schema?["properties"]?["tries"]?["type"] == "integer")
        #expect(schema?["required"] == ["grant_type", "tries"])
        #expect(operation["security"] == [["basicAuth": []]])
        #expect(document["components"]?["securitySchemes"]?["basicAuth"] == ["type": "http", "scheme": "basic"])
        guard case .array(let parameters)? = operation["parameters"] ?? .array([]) else { return }
        #expect(!parameters.contains { $0["name"] == "Authorization" })
        let response = operation["responses"]?["200"]?["content"]?["application/x-www-form-urlencoded"]?["schema"]
        #expect(response?["properties"]?["access_token"]?["minLength"] == 8)
        let notes = try #require(document["paths"]?["/notes"]?["post"]?["requestBody"]?["content"]?["multipart/form-data"]?["schema"])
        #expect(notes["properties"]?["file"] == ["type": "string", "format": "binary"])
        #expect(notes["required"] == ["file", "meta"])
    }

    @Test func openAPICarriesFormsAndPartsBackUnchanged() throws {
        let original = try contract()
        let document = OpenAPIExporter(title: "t", version: "1").document(for: [original])
        let result = try OpenAPIImporter.importDocument(Data(try document.prettyText().utf8), file: "openapi.json")
        let imported = try #require(result.files.first?.contract)
        #expect(imported.interactions.map(\.request) == original.interactions.map(\.request))
        #expect(imported.interactions.map(\.response) == original.interactions.map(\.response))
        #expect(imported.interactions.map(\.save) == original.interactions.map(\.save))
    }

    @Test func openAPIImportReadsAFormBodyAndBasicCredentials() throws {
        let document = #"""
            {"openapi": "3.1.0", "info": {"title": "T", "version": "1"},
             "components": {"securitySchemes": {"clientAuth": {"type": "http", "scheme": "basic"}}},
             "paths": {"/oauth/token": {"post": {"operationId": "token", "security": [{"clientAuth": []}],
               "requestBody": {"required": true, "content": {"application/x-www-form-urlencoded": {"schema": {
                 "type": "object", "required": ["grant_type"],
                 "properties": {"grant_type": {"type": "string", "enum": ["client_credentials"]}, "scope": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}}}}}},
               "responses": {"200": {"description": "ok"}}}}}}
            """#
        let result = try OpenAPIImporter.importDocument(Data(document.utf8), file: "doc.json")
        let interaction = try #require(result.files.first?.contract.interactions.first)
        guard case .form(let form) = interaction.request.body else {
            Issue.record("expected a form, got \(interaction.request.body)")
            return
        }
        #expect(form.names == ["grant_type", "scope"])
        #expect(form.field("grant_type")?.optional == false)
        #expect(form.field("scope")?.optional == true)
        let notes = result.notes.map(\.description)
        #expect(notes.contains { $0.contains("field tags") && $0.contains("is not text: left out") }, "\(notes)")
        let authorization = interaction.request.headers.first { $0.name == "Authorization" }?.value
        #expect(
            authorization
                == Matcher(
                    .basicAuth(username: .literal("{{env.CLIENT_AUTH_USERNAME}}"), password: .literal("{{env.CLIENT_AUTH_PASSWORD}}"))))
        // The imported contract is written and read back.
        let file = try #require(result.files.first)
        let text = try ContractYAML.contract(name: file.contract.name, interactions: file.contract.interactions)
        #expect(ContractLoader.parse(yaml: text, file: "doc.yaml").1 == [], "\(text)")
    }

    @Test func pactV4FormBodiesAreReadByTheirOwnContentType() throws {
        let pact = #"""
            {"consumer": {"name": "new"}, "provider": {"name": "api"}, "metadata": {"pactSpecification": {"version": "4.0"}},
             "interactions": [{"type": "Synchronous/HTTP", "description": "a token",
               "request": {"method": "POST", "path": "/oauth/token",
                           "body": {"contentType": "application/x-www-form-urlencoded", "encoded": false, "content": "grant_type=client_credentials&scope=a+b"},
                           "matchingRules": {"body": {"$.scope": {"matchers": [{"match": "regex", "regex": "[a-z ]+"}]}}}},
               "response": {"status": 200}}]}
            """#
        let result = PactImporter.importFiles([("new.json", Data(pact.utf8))])
        let file = try #require(result.files.first)
        let (contract, diagnostics) = ContractLoader.parse(yaml: file.yaml, file: "new.yaml")
        #expect(diagnostics == [], "\(file.yaml)")
        guard case .form(let form)? = contract?.interactions.first?.request.body else {
            Issue.record("expected a form\n\(file.yaml)")
            return
        }
        #expect(form.field("grant_type") == Matcher(.literal(.string("client_credentials"))))
        #expect(form.field("scope")?.kind == .regex("[a-z ]+"))
    }
}
