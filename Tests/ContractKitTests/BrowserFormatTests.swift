import ContractEvolution
import ContractKit
import ContractTestSupport
import Foundation
import JOSE
import Testing

/// `location:`, `cookies:`, `html:`, `follow_redirects` and `pkce_s256`: loading, what lint
/// says with its line, what a response is checked for, writing back; the page reader and its
/// selectors, fuzzed.
@Suite struct BrowserFormatTests {
    @Test func loadsAndWritesBackTheBrowserParts() throws {
        let contract = try loadContract(ToyProvider.browserContract)
        let page = contract.interactions[0]
        #expect(page.response.cookies["__Host-toy"]?.sameSite == "Lax")
        #expect(page.response.html.map(\.selector.description).first == "html")
        #expect(page.save["csrf"] == .responseHTML(try HTMLValueSource("input[name=csrf]@value")))
        let redirect = contract.interactions[1]
        #expect(redirect.response.location?.query.map(\.name) == ["code", "state"])
        #expect(redirect.save["code"] == .responseLocationQuery("code"))
        #expect(contract.interactions[3].request.followRedirects)
        let text = try ContractYAML.contract(name: contract.name, interactions: contract.interactions)
        let again = try loadContract(text)
        #expect(again.interactions.map(\.request) == contract.interactions.map(\.request))
        #expect(again.interactions.map(\.response) == contract.interactions.map(\.response), "\(text)")
        #expect(again.interactions.map(\.save) == contract.interactions.map(\.save))
    }

    @Test func mistakesAreNamedOnTheirLines() {
        func problems(_ response: String, save: String = "") -> [String] {
            let yaml = """
                name: T
                interactions:
                  - name: one
                    request: { method: GET, path: /page }
                    response:
                \(response.split(separator: "\n").map { "      " + $0 }.joined(separator: "\n"))
                \(save.isEmpty ? "" : "    save:\n" + save.split(separator: "\n").map { "      " + $0 }.joined(separator: "\n"))
                """
            return ContractLoader.parse(yaml: yaml, file: "t.yaml").1.map(\.description)
        }
        #expect(
            problems("status: 200\nhtml:\n  - select: 'a:hover'")
                == ["t.yaml:8:19: select 'a:hover': pseudo-classes such as ':hover' are not supported"])
        #expect(
            problems("status: 200\ncookies:\n  __Host-id: { secure: false }")
                == ["t.yaml:8:20: cookie '__Host-id': a __Host- cookie is always Secure"])
        #expect(
            problems("status: 200\ncookies:\n  a: { same_site: sometimes }").first?.contains("same_site must be Strict, Lax, None") == true)
        #expect(problems("status: 303\nlocation: { query: { code: x } }").first?.hasSuffix("location needs 'url'") == true)
        // The stub answers with the body's example: it must hold what the page is said to.
        let unheld = problems("status: 200\nhtml:\n  - select: h1\n    text: Hello\nbody: { match: string, example: '<h1>Bye</h1>' }")
        #expect(unheld.first?.contains(#"does not hold it: html 'h1' text: expected "Hello", got string "Bye""#) == true, "\(unheld)")
        let unsaved = problems(
            "status: 200\nbody: { match: string, example: '<p>x</p>' }", save: "token: 'response.html.input[name=t]@value'")
        #expect(unsaved.first?.contains("has no value at input[name=t]@value") == true, "\(unsaved)")
        #expect(problems("status: 200", save: "x: 'response.html.input'").first?.contains("must end with @ATTRIBUTE or @text") == true)
        #expect(
            problems("status: 302", save: "code: response.location.query.code").first?.contains("lists no query parameter 'code'") == true)
    }

    @Test func diffTellsWhatABrowserChangeBreaks() throws {
        let old = try loadContract(ToyProvider.browserContract)
        let new = try loadContract(
            ToyProvider.browserContract
                .replacingOccurrences(of: "          state: \"{{state}}\"\n", with: "")
                .replacingOccurrences(of: "        - select: 'input[type=password]'\n          count: 1\n", with: ""))
        let changes = ContractDiff.changes(old: [old], new: [new]).map { "\($0.impact) \($0.path): \($0.reason)" }
        #expect(changes.contains("breaking response location.query.state: removed: a client may read it"), "\(changes)")
        #expect(
            changes.contains("breaking response html 'input[type=password]': a page check removed: a client may rely on it"), "\(changes)")
    }

    @Test func aPKCEMatcherGoesBothWaysWithoutShowingAVerifier() throws {
        // RFC 7636 Appendix B.
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        #expect(PKCE.challenge(of: verifier) == challenge)
        let ofVerifier = Matcher(.pkceChallenge(verifier: Matcher(.literal(.string(verifier)))))
        #expect(try ofVerifier.sampleValue() == .string(challenge))
        #expect(ofVerifier.mismatches(in: .string(challenge)) == [])
        #expect(ofVerifier.mismatches(in: .string(PKCE.challenge(of: verifier + "x"))).count == 1)
        let ofChallenge = Matcher(.pkceVerifier(challenge: Matcher(.literal(.string(challenge)))), example: .string(verifier))
        #expect(ofChallenge.mismatches(in: .string(verifier)) == [])
        let other = String(repeating: "a", count: 43)
        let refused = ofChallenge.mismatches(in: .string(other)).map(\.description)
        #expect(
            refused == [
                "$: expected a PKCE verifier whose S256 is \"\(challenge)\", got a verifier whose S256 is another challenge (not shown)"
            ])
        #expect(!refused.joined().contains(other))
        #expect(ofChallenge.mismatches(in: .string("short")).count == 1)
        // A saved challenge: filled in when the run knows it.
        var undefined: [String] = []
        let saved = Matcher(.pkceVerifier(challenge: Matcher(.literal(.string("{{challenge}}")))), example: .string(verifier))
        #expect(saved.templateVariables == ["challenge"])
        #expect(saved.resolved(with: ["challenge": .string(challenge)], undefined: &undefined).mismatches(in: .string(other)).count == 1)
        let problems = ContractLoader.parse(
            yaml:
                "name: T\ninteractions:\n  - name: one\n    request: { method: GET, path: /a, query: { c: { match: pkce_s256 } } }\n    response: { status: 200 }\n",
            file: "t.yaml"
        ).1.map(\.description)
        #expect(problems.first?.contains("needs one of 'verifier'") == true, "\(problems)")
    }

    @Test func setCookieIsReadAsRFC6265Says() throws {
        let cookie = try #require(SetCookie(parsing: "__Host-id=a=b; path=/; max-age=60; HTTPONLY; Secure; SameSite=lax; Unknown=1"))
        #expect(cookie.name == "__Host-id" && cookie.value == "a=b")
        #expect(cookie.httpOnly && cookie.secure && cookie.sameSite == "lax" && cookie.path == "/" && cookie.maxAge == 60)
        #expect(SetCookie(parsing: "no-equals; Path=/") == nil)
        #expect(SetCookie(parsing: "=value") == nil)
        #expect(SetCookie(parsing: "a=1; Max-Age=soon")?.maxAge == nil)
        #expect(SetCookie(parsing: "a=1; Expires=Sun, 06 Nov 1994 08:49:37 GMT")?.expires == Date(timeIntervalSince1970: 784_111_777))
    }
}

/// The page reader and its selectors.
@Suite struct HTMLReadingTests {
    static let page = """
        <!DOCTYPE html>
        <html lang="ja"><head><title>Sign in &amp; more</title>
        <script>if (a < b && "</div>") {}</script></head>
        <body>
        <!-- <input name="csrf" value="commented"> -->
        <main id=main class="card wide">
        <h1>Sign   in</h1>
        <form method=post action="/authorize/sign-in?a=1&amp;b=2">
        <input type="hidden" name="csrf" value="t&#x6F;ken&#33;">
        <input type=password name=password autocomplete="current-password" required>
        <p>one<p>two
        </form>
        <ul><li data-scope="openid">You<li data-scope="email">Mail</ul>
        </main>
        </body></html>
        """

    func select(_ selector: String, in text: String = page) throws -> [HTMLDocument.Element] {
        let document = HTMLDocument(parsing: text)
        return document.select(try HTMLSelector(selector)).map { document.elements[$0] }
    }

    @Test func readsElementsAttributesAndText() throws {
        let document = HTMLDocument(parsing: Self.page)
        let csrf = try #require(try select("input[name=csrf]").first)
        #expect(csrf.attributes["value"] == "token!")
        #expect(try select("form").first?.attributes["action"] == "/authorize/sign-in?a=1&b=2")
        #expect(try select("html[lang=ja]").count == 1)
        let h1 = try #require(document.select(try HTMLSelector("h1")).first)
        #expect(document.text(of: h1) == "Sign in")
        let title = try #require(document.select(try HTMLSelector("title")).first)
        #expect(document.text(of: title) == "Sign in & more")
        // Script text is not markup; a comment holds no element.
        #expect(try select("div").isEmpty)
        #expect(try select("input").count == 2)
        // Void elements hold nothing; a new <p> or <li> closes the open one.
        #expect(try select("input p").isEmpty)
        #expect(try select("form > p").count == 2)
        #expect(try select("li").map { $0.attributes["data-scope"] } == ["openid", "email"])
    }

    @Test func selectorsCombine() throws {
        #expect(try select("main#main.card.wide form > input[type=hidden]").count == 1)
        #expect(try select("body > form").isEmpty)
        #expect(try select("body form").count == 1)
        #expect(try select("[autocomplete~=current-password]").count == 1)
        #expect(try select("form[action^='/authorize/']").count == 1)
        #expect(try select("form[action$=\"b=2\"]").count == 1)
        #expect(try select("form[action*=sign-in]").count == 1)
        #expect(try select("html[lang|=ja]").count == 1)
        #expect(try select("INPUT[TYPE=PASSWORD i]").count == 1)
        #expect(try select("h1, li").count == 3)
        #expect(try select("*").count == HTMLDocument(parsing: Self.page).elements.count)
        for (selector, reason) in [
            ("a + b", "the sibling combinator '+' is not supported"),
            ("a:first-child", "pseudo-classes such as ':first-child' are not supported"),
            ("", "a selector is empty"), ("[name", "expected ']' or an operator such as '=' in [name…]"),
            ("[name='x]", "an attribute value's quote is not closed"), ("a,", "a selector is empty"),
        ] {
            #expect(throws: HTMLSelector.Invalid.self) { try HTMLSelector(selector) }
            #expect((try? HTMLSelector(selector)) == nil)
            do { _ = try HTMLSelector(selector) } catch { #expect("\(error)" == reason, "\(selector)") }
        }
    }

    /// Any text reads as a document with a consistent tree, and any selector over it
    /// answers: random soups of markup characters, from a fixed seed.
    @Test func anyTextReadsAndSelects() throws {
        var generator = SeededGenerator(seed: 0x5EED)
        let pieces = [
            "<", ">", "</", "/>", "<!--", "-->", "<!", "=", "\"", "'", " ", "a", "div", "p", "li", "input", "script", "title",
            "&", "&amp;", "&#", "&#x", ";", "x", "<a", "<p", "</p", "</div>", "<script>", "</script", "\u{0}", "é", "\n",
        ]
        let selectors = try ["div p", "a > p", "[x]", "input[a=b]", "*", "p, li", "script"].map(HTMLSelector.init)
        // One expectation for the whole run: thousands of them would make this test, which
        // holds a thread of the suite's pool, slow on a loaded machine.
        var inconsistent: [String] = []
        for _ in 0..<1000 {
            let count = Int.random(in: 0..<60, using: &generator)
            let text = (0..<count).map { _ in pieces.randomElement(using: &generator) ?? "" }.joined()
            let document = HTMLDocument(parsing: text)
            for (index, element) in document.elements.enumerated() {
                let parentBefore = element.parent.map { $0 < index } ?? true
                let descendantsInside = element.descendantsEnd > index && element.descendantsEnd <= document.elements.count
                if !parentBefore || !descendantsInside { inconsistent.append(text) }
                _ = document.text(of: index)
            }
            for selector in selectors { _ = document.select(selector) }
        }
        #expect(inconsistent.isEmpty, "\(inconsistent.prefix(3))")
        // Deep nesting does not recurse: ten thousand open elements.
        let deep = HTMLDocument(parsing: String(repeating: "<div>", count: 10_000) + "<p>x")
        #expect(deep.select(try HTMLSelector("div p")).count == 1)
    }
}

/// A fixed-seed generator (SplitMix64), so the fuzzed inputs are the same at every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
