import ContractInterop
import ContractKit
import Foundation
import Testing

/// What Pact and OpenAPI make of `location:`, `cookies:`, `html:`, `follow_redirects` and
/// `pkce_s256`.
@Suite struct BrowserExportTests {
    static let browser = """
        name: Browser
        interactions:
          - name: the page
            request:
              method: GET
              path: /toy/authorize
              query: { code_challenge: { match: pkce_s256, verifier: dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk } }
            response:
              status: 200
              html: [{ select: form }]
              body: { match: string, example: "<form></form>" }
          - name: the sign-in
            request: { method: POST, path: /toy/sign-in, follow_redirects: true }
            response:
              status: 303
              location:
                url: "https://app.example/cb"
                query: { code: { match: string, min_length: 8, example: stub-code-1 }, state: xyz }
              cookies:
                __Host-toy: { http_only: true, secure: true, same_site: Lax, path: / }
        """

    func loadContract(_ yaml: String) throws -> Contract {
        let (contract, diagnostics) = ContractLoader.parse(yaml: yaml, file: "browser.yaml")
        #expect(diagnostics == [])
        return try #require(contract)
    }

    @Test func pactGetsTheLocationAndACookieAndNotesWhatItCannotCheck() throws {
        let contract = try loadContract(Self.browser)
        let export = PactExporter(consumer: "app", provider: "toy").export([contract])
        guard case .array(let interactions)? = export.document["interactions"] else {
            Issue.record("no interactions")
            return
        }
        let redirect = interactions[1]["response"]
        #expect(redirect?["headers"]?["Location"] == "https://app.example/cb?code=stub-code-1&state=xyz")
        #expect(redirect?["matchingRules"]?["header"]?["Location"] != nil)
        #expect(redirect?["headers"]?["Set-Cookie"]?.text.hasPrefix("__Host-toy=stub-__Host-toy; Path=/") == true)
        let notes = export.notes.map(\.message)
        #expect(notes.contains { $0.contains("location's query parameters are one header to Pact") })
        #expect(notes.contains { $0.contains("cookies are one Set-Cookie header to Pact") })
        #expect(notes.contains("response html: Pact has no page checks: it matches the body's matcher only"))
        #expect(notes.contains { $0.hasPrefix("request follow_redirects: Pact follows them too, but carries no cookie") })
        #expect(notes.contains { $0.contains("PKCE value tied to another") })
    }

    @Test func openAPIDescribesTheLocationAndTheCookies() throws {
        let exporter = OpenAPIExporter(title: "Toy", version: "1")
        let document = exporter.document(for: [try loadContract(Self.browser)])
        let signIn = document["paths"]?["/toy/sign-in"]?["post"]?["responses"]?["303"]?["headers"]
        #expect(signIn?["Location"]?["description"] == "Where the browser goes next; its query carries code, state.")
        #expect(signIn?["Location"]?["schema"]?["format"] == "uri-reference")
        #expect(signIn?["Set-Cookie"]?["description"] == "Sets __Host-toy (HttpOnly, Secure, SameSite=Lax).")
    }

    /// A request to a URL a discovery document named (`path: "{{token_endpoint}}"`) has no
    /// path either format can hold: both leave it out, and Pact says so.
    @Test func aRequestToASavedURLIsLeftOutOfBoth() throws {
        let contract = try loadContract(
            """
            name: Discovered
            interactions:
              - name: discovery
                request: { method: GET, path: /.well-known/openid-configuration }
                response: { status: 200, json: { token_endpoint: { match: string } } }
                save: { token_endpoint: $.token_endpoint }
              - name: a token
                request: { method: POST, path: "{{token_endpoint}}", form: { grant_type: client_credentials } }
                response: { status: [200, 201] }
            """)
        let export = PactExporter(consumer: "app", provider: "any").export([contract])
        guard case .array(let interactions)? = export.document["interactions"] else {
            Issue.record("no interactions")
            return
        }
        #expect(interactions.count == 1)
        #expect(
            export.notes.map(\.message) == [
                "left out: its request goes to the URL saved as 'token_endpoint', which Pact's path cannot hold"
            ])
        let document = OpenAPIExporter(title: "Any", version: "1").document(for: [contract])
        guard case .object(let paths)? = document["paths"] else {
            Issue.record("no paths")
            return
        }
        #expect(paths.keys.sorted() == ["/.well-known/openid-configuration"])
    }
}
