import Foundation
import ProcessKit
import Testing

/// `contract import openapi`: a document becomes contract files, a contract.yaml skeleton
/// and IMPORT-NOTES.md that `contract lint` takes; a broken one exits 2 saying where.
@Suite struct OpenAPIImportCLITests {
    func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await AuthdContractTests.contract(arguments)
    }

    static let document = """
        openapi: 3.0.3
        info: { title: Notes, version: 1.0.0 }
        paths:
          /notes/{id}:
            get:
              operationId: getNote
              tags: [notes]
              x-contract-given: [note exists]
              parameters: [{ name: id, in: path, required: true, schema: { type: string, format: uuid } }]
              responses:
                "200":
                  description: the note
                  content:
                    application/json:
                      schema: { type: object, required: [id, title], properties: { id: { type: string, format: uuid }, title: { type: string }, color: { type: string, enum: [red, blue] } } }
                      example: { id: 3f1c2a4e-9d1b-4c6e-8f0a-2b7d5e9c1a3f, title: Groceries, color: red }
                "404": { description: none }
              callbacks: { changed: { "{$request.query.url}": { post: { responses: { "200": { description: ok } } } } } }
        """

    @Test func aDocumentBecomesContractsASkeletonAndNotes() async throws {
        let temporary = try TemporaryFolder("openapi-import")
        defer { temporary.remove() }
        let file = temporary.appending("notes.yaml")
        try Data(Self.document.utf8).write(to: file)
        let out = temporary.appending("out")

        let imported = try await run(["import", "openapi", file.path, "--out", out.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("\(out.path)/notes.yaml: 2 interactions from the schemas"))
        #expect(imported.stdout.contains("\(out.path)/contract.yaml: a skeleton: fill in how to start the provider and set up 1 states"))
        #expect(imported.stderr.contains("\(file.path): GET /notes/{id}: callbacks (changed) are not carried"))
        let notes = try String(contentsOf: out.appendingPathComponent("IMPORT-NOTES.md"), encoding: .utf8)
        #expect(notes.contains("- `GET /notes/{id}`: callbacks (changed) are not carried"))
        let configuration = try String(contentsOf: out.appendingPathComponent("contract.yaml"), encoding: .utf8)
        #expect(configuration.contains("note exists:"))

        let linted = try await run(["lint", out.path])
        #expect(linted.status == 0, "\(linted.stdout)\(linted.stderr)")
        #expect(linted.stdout.contains("1 contracts, 2 interactions: OK"))
    }

    @Test func aBrokenDocumentExits2SayingWhere() async throws {
        let temporary = try TemporaryFolder("openapi-import-broken")
        defer { temporary.remove() }
        let file = temporary.appending("broken.json")
        try Data(#"{"openapi": "3.1.0", "info": {"title": "T", "version": "1"}, "paths": {"/a": {"get": {"responses": 5}}}}"#.utf8).write(
            to: file)
        let result = try await run(["import", "openapi", file.path, "--out", temporary.appending("out").path])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("\(file.path): .paths['/a'].get.responses: "), "\(result.stderr)")
    }
}
