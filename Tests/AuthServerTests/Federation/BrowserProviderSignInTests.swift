import AuthCore
import AuthPostgres
import AuthServer
import AuthTestSupport
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JOSE
import NIOCore
import PostgresNIO
import Testing

/// Sign-in with a provider from the hosted sign-in page, authd the relying party: the
/// page's button, the provider's authorization request (code, PKCE, `state`, `nonce`,
/// `form_post` for Apple), the callback taken only with its browser's attempt, once, and the
/// authorization request going on; a verified email of an existing account linked only
/// after its owner signs in and says so.
@Suite struct BrowserProviderSignInTests {
    static let issuer = AuthorizationCodeFlowTests.issuer

    /// A browser: its cookies by name, and what it sends.
    struct Browser {
        var cookies: [String: String] = [:]

        mutating func keep(_ response: TestResponse) {
            for field in response.headers[values: .setCookie] {
                let pair = field.split(separator: ";")[0].split(separator: "=", maxSplits: 1).map(String.init)
                if field.contains("Max-Age=0") { cookies[pair[0]] = nil } else { cookies[pair[0]] = pair.count > 1 ? pair[1] : "" }
            }
        }

        var cookieHeader: String? {
            cookies.isEmpty ? nil : cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
        }

        mutating func get(_ client: some TestClientProtocol, _ uri: String) async throws -> TestResponse {
            var headers: HTTPFields = [:]
            headers[.cookie] = cookieHeader
            let response = try await client.execute(uri: uri, method: .get, headers: headers)
            keep(response)
            return response
        }

        /// A form POST to `action`; `site` as `Sec-Fetch-Site` says where it came from (a
        /// provider's `form_post` is `cross-site`, without `Origin` authd's).
        mutating func post(
            _ client: some TestClientProtocol, _ action: String, _ fields: [(String, String)], site: String = "same-origin",
            origin: String? = BrowserProviderSignInTests.issuer
        ) async throws -> TestResponse {
            var headers = AccountPagesTests.formHeaders(cookie: cookieHeader, origin: origin ?? "", site: site)
            if origin == nil { headers[.origin] = nil }
            let response = try await client.execute(
                uri: action, method: .post, headers: headers, body: ByteBuffer(string: AuthorizationCodeFlowTests.encode(fields)))
            keep(response)
            return response
        }
    }

    /// The fixture of the code-flow tests (alice, `phone-app`) with the test provider added
    /// as `upstream` (or as Apple).
    static func fixture(issuer upstream: String, apple: Bool = false) async throws -> ServerFixture {
        var fixture = try await AuthorizationCodeFlowTests.fixture()
        fixture.configuration.providerRevocationInterval = .seconds(3600)
        if apple {
            try await fixture.addProvider(
                "apple", issuer: upstream, kind: .apple,
                apple: (AppleCodeSignInTests.teamID, AppleCodeSignInTests.keyID, AppleCodeSignInTests.appleKey))
        } else {
            try await fixture.addProvider("upstream", issuer: upstream)
        }
        return fixture
    }

    /// Gives alice the verified address the provider's tokens carry (`river@example.com`).
    static func giveAliceTheProvidersAddress(_ fixture: ServerFixture) async throws {
        _ = try await fixture.withDatabase { database async throws in
            try await database.client.query(
                "UPDATE users SET email = 'river@example.com', email_key = 'river@example.com', email_verified_at = now()")
        }
    }

    /// A sign-in at Apple from the sign-in page, Apple's `form_post` answer (a cross-site
    /// POST with a code for a token of the attempt, its `refreshToken`, and `user` when given)
    /// posted back: authd's answer.
    static func returnFromApple(
        _ browser: inout Browser, _ client: some TestClientProtocol, _ upstream: TestIdentityProvider, issuer: String,
        refreshToken: String, user: String? = nil
    ) async throws -> TestResponse {
        let request = try await startAtProvider(&browser, client, provider: "apple")
        let code = upstream.issueCode(for: token(upstream, issuer: issuer, request: request), refreshToken: refreshToken)
        var fields = [("code", code), ("state", try #require(request["state"]))]
        if let user { fields.append(("user", user)) }
        return try await browser.post(client, "/federation/callback", fields, site: "cross-site", origin: "https://appleid.apple.com")
    }

    /// The sign-in page of a new authorization request of `phone-app`.
    static func signInPage(_ browser: inout Browser, _ client: some TestClientProtocol) async throws -> String {
        let page = try await browser.get(
            client, "/authorize?" + AuthorizationCodeFlowTests.authorizeQuery(challenge: AuthorizationCodeFlowTests.pkce().challenge))
        #expect(page.status == .ok)
        return String(buffer: page.body)
    }

    /// The provider button's form action on `html`.
    static func providerAction(in html: String) throws -> String {
        let start = try #require(html.range(of: #"action="/authorize/provider?"#)).upperBound
        return "/authorize/provider?" + String(html[start...].prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
    }

    /// The provider's authorization request the button sends the browser to.
    static func startAtProvider(_ browser: inout Browser, _ client: some TestClientProtocol, provider: String) async throws
        -> [String: String]
    {
        let html = try await signInPage(&browser, client)
        #expect(html.contains(#"id="provider-\#(provider)""#))
        let started = try await browser.post(
            client, try providerAction(in: html), [("provider", provider), ("csrf", try AccountPagesTests.csrfToken(in: html))])
        #expect(started.status == .seeOther)
        // A space is `+` in a form-encoded query.
        return try AuthorizationCodeFlowTests.parameters(started).mapValues { $0.replacingOccurrences(of: "+", with: " ") }
    }

    /// An ID token of the provider for the browser's attempt (its `nonce`), for `subject`.
    static func token(
        _ upstream: TestIdentityProvider, issuer: String, request: [String: String], subject: String = "user-1",
        email: String = "river@example.com"
    ) -> String {
        var claims = TestIdentityProvider.claims(issuer: issuer, subject: subject, email: email)
        claims["nonce"] = request["nonce"]
        return upstream.token(claims)
    }

    @Test func theButtonSignsInThroughTheProviderAndTheRequestGoesOn() async throws {
        let upstream = TestIdentityProvider()
        try await upstream.withRunning { issuer in
            let fixture = try await Self.fixture(issuer: issuer)
            try await fixture.test { client async throws in
                var browser = Browser()
                let request = try await Self.startAtProvider(&browser, client, provider: "upstream")
                // OIDC Core §3.1.2.1 with PKCE (RFC 7636 §4.3): the first client id, authd's one callback.
                #expect(request["response_type"] == "code")
                #expect(request["client_id"] == TestIdentityProvider.audience)
                #expect(request["redirect_uri"] == Self.issuer + "/federation/callback")
                #expect(request["scope"] == "openid email profile")
                #expect(request["code_challenge_method"] == "S256")
                #expect(request["response_mode"] == nil)
                let state = try #require(request["state"])
                #expect(state.count >= 43 && request["nonce"]?.count ?? 0 >= 43)
                let attemptCookie = try #require(browser.cookies["__Host-authd_provider"])

                let idToken = Self.token(upstream, issuer: issuer, request: request)
                let code = upstream.issueCode(for: idToken)
                let back = try await browser.get(
                    client, "/federation/callback?code=\(code)&state=\(state)&iss=" + AccountPagesTests.encoded(issuer))
                #expect(back.status == .seeOther)
                let answer = try AuthorizationCodeFlowTests.parameters(back)
                #expect(try #require(back.headers[.location]).hasPrefix(AuthorizationCodeFlowTests.native))
                #expect(answer["code"] != nil && answer["state"] == "st4te")
                #expect(browser.cookies["__Host-authd_provider"] == nil)
                // The code went back with the verifier of the challenge and the same redirect URI.
                let form = try #require(upstream.tokenForms.last)
                let verifier = try #require(form["code_verifier"])
                #expect(Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8)))) == request["code_challenge"])
                #expect(form["redirect_uri"] == request["redirect_uri"])
                #expect(try await fixture.auditDetails(of: "login_succeeded").contains("provider:upstream"))

                // Replayed with the attempt's cookie: the code again (the provider refuses it),
                // and the same ID token under a new code (authd refuses it: each signs in once).
                var replaying = Browser(cookies: ["__Host-authd_provider": attemptCookie])
                let again = try await replaying.get(client, "/federation/callback?code=\(code)&state=\(state)")
                #expect(again.status == .unauthorized)
                replaying = Browser(cookies: ["__Host-authd_provider": attemptCookie])
                let tokenAgain = upstream.issueCode(for: idToken)
                let replayed = try await replaying.get(client, "/federation/callback?code=\(tokenAgain)&state=\(state)")
                #expect(replayed.status == .unauthorized)
                #expect(String(buffer: replayed.body).contains("Signing in with upstream did not finish"))
                #expect(try await fixture.auditDetails(of: "login_failed").contains("upstream:id_token_replayed"))
            }
        }
    }

    @Test func anAnswerOfAnotherBrowserOrIssuerIsRefused() async throws {
        let upstream = TestIdentityProvider()
        try await upstream.withRunning { issuer in
            let fixture = try await Self.fixture(issuer: issuer)
            try await fixture.test { client async throws in
                var browser = Browser()
                let request = try await Self.startAtProvider(&browser, client, provider: "upstream")
                let state = try #require(request["state"])
                let code = upstream.issueCode(for: Self.token(upstream, issuer: issuer, request: request))
                // Login CSRF (RFC 9700 §4.7): another browser's answer, or no attempt at all.
                var other = Browser()
                _ = try await Self.startAtProvider(&other, client, provider: "upstream")
                #expect(try await other.get(client, "/federation/callback?code=\(code)&state=\(state)").status == .badRequest)
                var none = Browser()
                #expect(try await none.get(client, "/federation/callback?code=\(code)&state=\(state)").status == .badRequest)
                // A mix-up (RFC 9207 §2.4): the answer names another issuer.
                var mixed = browser
                let mixUp = try await mixed.get(client, "/federation/callback?code=\(code)&state=\(state)&iss=https%3A%2F%2Fevil.example")
                #expect(mixUp.status == .badRequest)
                #expect(upstream.tokenForms.isEmpty)
                #expect(
                    try await fixture.auditDetails(of: "login_failed").compactMap { $0 }.sorted() == [
                        "upstream:issuer_mismatch", "upstream:state_mismatch",
                    ])
                // A token for another nonce (another attempt's) signs nothing in.
                var claims = TestIdentityProvider.claims(issuer: issuer, subject: "user-9")
                claims["nonce"] = "not-this-attempts"
                let foreign = upstream.issueCode(for: upstream.token(claims))
                let refused = try await browser.get(client, "/federation/callback?code=\(foreign)&state=\(state)")
                #expect(refused.status == .unauthorized)
                // The user cancelled at the provider: back on the sign-in page, told so.
                var cancelled = Browser()
                let second = try await Self.startAtProvider(&cancelled, client, provider: "upstream")
                let back = try await cancelled.get(
                    client, "/federation/callback?error=access_denied&state=\(try #require(second["state"]))")
                #expect(back.status == .unauthorized)
                #expect(String(buffer: back.body).contains("Signing in with upstream did not finish"))
            }
        }
    }

    @Test func appleAnswersByFormPostAndTheNameOfTheFirstSignInIsKept() async throws {
        let upstream = TestIdentityProvider()
        try await upstream.withRunning { issuer in
            let fixture = try await Self.fixture(issuer: issuer, apple: true)
            try await fixture.test { client async throws in
                var browser = Browser()
                let request = try await Self.startAtProvider(&browser, client, provider: "apple")
                #expect(request["response_mode"] == "form_post")
                #expect(request["scope"] == "openid email name")
                let code = upstream.issueCode(for: Self.token(upstream, issuer: issuer, request: request), refreshToken: "r.apple-web")
                // Apple's POST is cross-site: only the SameSite=None attempt cookie comes with it.
                var crossSite = Browser(cookies: ["__Host-authd_provider": try #require(browser.cookies["__Host-authd_provider"])])
                let user = #"{"name":{"firstName":"River","lastName":"Song"},"email":"river@example.com"}"#
                let back = try await crossSite.post(
                    client, "/federation/callback", [("code", code), ("state", try #require(request["state"])), ("user", user)],
                    site: "cross-site", origin: "https://appleid.apple.com")
                #expect(back.status == .seeOther)
                #expect(try #require(back.headers[.location]).hasPrefix(AuthorizationCodeFlowTests.native))
                try AppleCodeSignInTests.expectAppleClientSecret(try #require(upstream.tokenForms.last))
                let row = try await fixture.withDatabase { database async throws in
                    var found: (String?, Bool)?
                    for try await row in try await database.client.query(
                        "SELECT name, sealed_refresh_token IS NOT NULL FROM identities WHERE provider = 'apple'"
                    ).decode((String?, Bool).self) { found = row }
                    return found
                }
                #expect(row?.0 == "River Song")
                #expect(row?.1 == true)
            }
        }
        let attempt = try await Self.attemptCookieAttributes()
        #expect(attempt.contains("SameSite=None") && attempt.contains("Secure") && attempt.contains("HttpOnly"))
    }

    /// The `Set-Cookie` of an attempt, as the provider button sets it.
    static func attemptCookieAttributes() async throws -> String {
        let upstream = TestIdentityProvider()
        return try await upstream.withRunning { issuer in
            let fixture = try await Self.fixture(issuer: issuer)
            return try await fixture.test { client async throws in
                var browser = Browser()
                let html = try await Self.signInPage(&browser, client)
                let started = try await browser.post(
                    client, try Self.providerAction(in: html),
                    [("provider", "upstream"), ("csrf", try AccountPagesTests.csrfToken(in: html))])
                return try #require(started.headers[values: .setCookie].first { $0.hasPrefix("__Host-authd_provider=") })
            }
        }
    }

    @Test func anExistingAccountsEmailIsLinkedOnlyAfterItsOwnerSignsInAndSaysSo() async throws {
        let upstream = TestIdentityProvider()
        try await upstream.withRunning { issuer in
            let fixture = try await Self.fixture(issuer: issuer, apple: true)
            try await Self.giveAliceTheProvidersAddress(fixture)
            try await fixture.test { client async throws in
                var browser = Browser()
                let page = try await Self.returnFromApple(
                    &browser, client, upstream, issuer: issuer, refreshToken: "r.kept-for-link",
                    user: #"{"name":{"firstName":"Alice","lastName":"Liddell"}}"#)
                // Not linked, not signed in: the sign-in page, saying why.
                #expect(page.status == .ok)
                let html = String(buffer: page.body)
                #expect(html.contains(#"id="notice""#) && html.contains("to link Apple"))
                #expect(try await fixture.identityCount() == 0)
                // The owner signs in with the password: the link is offered, and confirmed.
                let offered = try await browser.post(
                    client,
                    try #require(AuthorizationCodeFlowTests.attribute("action", in: html)).replacingOccurrences(of: "&amp;", with: "&"),
                    [
                        ("username", "alice"), ("password", AuthorizationCodeFlowTests.password),
                        ("csrf", try AccountPagesTests.csrfToken(in: html)),
                    ])
                #expect(offered.status == .ok)
                let linkPage = String(buffer: offered.body)
                #expect(linkPage.contains("Link Apple to your account?"))
                let linked = try await browser.post(
                    client,
                    try #require(AuthorizationCodeFlowTests.attribute("action", in: linkPage)).replacingOccurrences(of: "&amp;", with: "&"),
                    [("decision", "link"), ("csrf", try AccountPagesTests.csrfToken(in: linkPage))])
                #expect(linked.status == .seeOther)
                #expect(try #require(linked.headers[.location]).hasPrefix(AuthorizationCodeFlowTests.native))
                let row = try await fixture.withDatabase { database async throws in
                    var found: (String, String?, Bool)?
                    for try await row in try await database.client.query(
                        """
                        SELECT u.username, i.name, i.sealed_refresh_token IS NOT NULL FROM identities i JOIN users u ON u.id = i.user_id
                        """
                    ).decode((String, String?, Bool).self) { found = row }
                    return found
                }
                // Linked to alice, with the name and the refresh token the sign-in came with.
                #expect(row?.0 == "alice")
                #expect(row?.1 == "Alice Liddell")
                #expect(row?.2 == true)
                #expect(try await fixture.auditDetails(of: "identity_linked") == ["apple:confirmed"])
            }
        }
    }

    @Test func aWaitingLinksRefreshTokenIsRevokedWhenTheLinkIsNeverConfirmed() async throws {
        let upstream = TestIdentityProvider()
        try await upstream.withRunning { issuer in
            var configured = try await Self.fixture(issuer: issuer, apple: true)
            configured.configuration.providerRevocationInterval = .milliseconds(100)
            let fixture = configured
            try await Self.giveAliceTheProvidersAddress(fixture)
            try await fixture.test { client async throws in
                var browser = Browser()
                let page = try await Self.returnFromApple(&browser, client, upstream, issuer: issuer, refreshToken: "r.never-linked")
                #expect(page.status == .ok)
                // The account goes before its owner confirms: the waiting link's token is revoked.
                _ = try await fixture.withDatabase { database async throws in
                    try await database.client.query("DELETE FROM users WHERE username = 'alice'")
                }
                try await Polling.until("the unlinked token is revoked", within: .seconds(60)) {
                    upstream.revocationForms.contains { $0["token"] == "r.never-linked" }
                }
                #expect(upstream.revocationForms.map { $0["token"] } == ["r.never-linked"])
            }
        }
    }
}

extension ServerFixture {
    /// How many identities are linked.
    func identityCount() async throws -> Int {
        try await withDatabase { database async throws in
            var count = 0
            for try await row in try await database.client.query("SELECT count(*) FROM identities").decode(Int.self) { count = row }
            return count
        }
    }
}
