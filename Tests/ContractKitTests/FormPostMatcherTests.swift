import ContractKit
import ContractTestSupport
import Foundation
import Testing

/// `{ match: form_post }`: a page that posts its hidden fields to the action at once, as
/// authd answers `response_mode=form_post`; the stub's page passes its own check.
@Suite struct FormPostMatcherTests {
    static let matcher = Matcher(
        .formPost(
            action: Matcher(.literal("https://app.example/cb")),
            fields: ["code": Matcher(.string(minLength: 4, maxLength: nil)), "state": Matcher(.literal("xyz"))]))

    /// authd's form-post.mustache, filled.
    static func page(
        action: String = "https://app.example/cb",
        fields: String =
            #"<input type="hidden" name="code" value="SplxlOBeZQQYbYS6WxSbIA"><input type="hidden" name="state" value="xyz"><input type="hidden" name="iss" value="authd">"#,
        script: Bool = true
    ) -> JSONValue {
        .string(
            """
            <!DOCTYPE html><html lang="en"><title>Continue</title><main><h1>Continue</h1>
            <form method="post" action="\(action)" id="response">\(fields)
            <noscript><button type="submit">Continue</button></noscript></form>
            \(script ? #"<script nonce="n">document.getElementById("response").submit();</script>"# : "")</main></html>
            """)
    }

    @Test func authdsPagePasses() {
        #expect(Self.matcher.mismatches(in: Self.page()).isEmpty, "\(Self.matcher.mismatches(in: Self.page()))")
    }

    @Test func eachWayAPageFailsIsSaid() {
        #expect(Self.matcher.mismatches(in: Self.page(action: "https://attacker.example/cb")).map(\.path) == ["$ form action"])
        #expect(
            Self.matcher.mismatches(in: Self.page(fields: #"<input type="hidden" name="code" value="abc">"#)).map(\.path) == [
                "$ field code", "$ field state",
            ])
        #expect(Self.matcher.mismatches(in: Self.page(script: false)).map(\.expected) == ["a script that submits the form"])
        #expect(Self.matcher.mismatches(in: .string("<p>no form</p>")).map(\.expected) == ["a page with one form that posts"])
        #expect(Self.matcher.mismatches(in: .integer(1)).count == 1)
    }

    @Test func theStubsPagePassesItsOwnCheckWithItsValuesEscaped() throws {
        let quoting = Matcher(
            .formPost(action: Matcher(.literal("https://app.example/cb?a=1&b=2")), fields: ["state": Matcher(.literal(#"a"b<c"#))]))
        let sample = try quoting.sampleValue()
        #expect(quoting.mismatches(in: sample).isEmpty, "\(sample)")
        #expect(sample.text.contains(#"value="a&quot;b&lt;c""#))
        #expect(Self.matcher.mismatches(in: try Self.matcher.sampleValue()).isEmpty)
    }

    @Test func itIsReadWithItsKeysAndCheckedWhenLoaded() throws {
        let contract = try loadContract(
            """
            name: Form post
            interactions:
              - name: a page that posts the code
                request: { method: GET, path: /authorize }
                response:
                  status: 200
                  body:
                    match: form_post
                    action: "https://app.example/cb"
                    fields: { code: { match: string, example: the-code }, iss: authd }
                save: { code: 'response.html.input[name=code]@value' }
            """)
        guard case .text(let body) = contract.interactions[0].response.body else {
            Issue.record("not a text body")
            return
        }
        #expect(body.kind.as(FormPostMatcher.self)?.fields.keys.sorted() == ["code", "iss"])
        let (_, diagnostics) = ContractLoader.parse(
            yaml:
                "name: T\ninteractions:\n  - { name: a, request: { method: GET, path: / }, response: { status: 200, body: { match: form_post } } }\n",
            file: "t.yaml")
        #expect(diagnostics.map(\.message) == ["matcher 'form_post' needs 'action' (the URL the page posts to)"])
    }
}
