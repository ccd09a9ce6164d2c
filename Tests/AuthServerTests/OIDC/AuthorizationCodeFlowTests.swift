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
import JWTKit
import NIOCore
import Testing

/// The authorization code flow with PKCE through the router, as a browser and a client
/// drive it: `/authorize`, the sign-in page's form, the consent page, the code's exchange
/// at `/oauth/token`, the ID token checked with jwt-kit against the JWKS, `/userinfo`, the
/// client's refresh, and `/logout`; and the attacks of RFC 9700 §4 each refused.
@Suite struct AuthorizationCodeFlowTests {
    static let issuer = "https://auth.example.com"
    static let password = "correct horse battery staple"
    static let native = "com.example.app:/callback"
    static let web = "https://photos.example.com/cb"

    /// A fixture with `alice`, a public first-party app (`phone-app`) and a confidential
    /// third-party site (`photos`, secret `photos-secret`).
    static func fixture() async throws -> ServerFixture {
        try await registered(try await ServerFixture())
    }

    /// `fixture` with the issuer, `alice` and the two clients.
    static func registered(_ fixture: ServerFixture) async throws -> ServerFixture {
        var fixture = fixture
        fixture.configuration.issuer = issuer
        fixture.configuration.publicURL = issuer
        try await fixture.addUser("alice", password: password)
        try await PostgresStorage(
            configuration: fixture.testDatabase.configuration, timeout: TestCluster.operationTimeout, logger: TestCluster.logger
        ).withRunning { storage in
            let registry = ClientRegistry(storage: storage)
            _ = try await registry.register(
                id: "phone-app", audiences: [],
                signIn: try OIDCClientSettings(
                    redirectURIs: [native], postLogoutRedirectURIs: ["com.example.app:/signed-out"], isPublic: true, firstParty: true))
            _ = try await registry.register(
                id: "photos", audiences: [], secret: "photos-secret-0123456789abcdef0123456789",
                signIn: try OIDCClientSettings(
                    redirectURIs: [web], postLogoutRedirectURIs: ["https://photos.example.com/bye"],
                    scopes: ["openid", "profile", "email"],
                    idTokenAlgorithm: .es256))
        }
        return fixture
    }

    /// A PKCE pair (RFC 7636 §4.1, §4.2).
    static func pkce() -> (verifier: String, challenge: String) {
        let verifier = SecureRandom.base64URLText(length: 64)
        return (verifier, Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8)))))
    }

    static func authorizeQuery(
        client: String = "phone-app", redirectURI: String = native, scope: String = "openid profile email offline_access",
        state: String = "st4te",
        nonce: String = "n0nce", challenge: String?, extra: [(String, String)] = []
    ) -> String {
        var fields: [(String, String)] = [
            ("response_type", "code"), ("client_id", client), ("redirect_uri", redirectURI), ("scope", scope), ("state", state),
            ("nonce", nonce),
        ]
        if let challenge { fields += [("code_challenge", challenge), ("code_challenge_method", "S256")] }
        return encode(fields + extra)
    }

    static func encode(_ fields: [(String, String)]) -> String {
        fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0.1)" }.joined(separator: "&")
    }

    /// The browser: its cookie and the pages' forms.
    struct Browser {
        var cookie: String?

        mutating func keep(_ response: TestResponse) {
            if let setCookie = response.headers[.setCookie], let pair = setCookie.split(separator: ";").first { cookie = String(pair) }
        }

        mutating func get(_ client: some TestClientProtocol, _ uri: String) async throws -> TestResponse {
            var headers: HTTPFields = [:]
            if let cookie { headers[.cookie] = cookie }
            let response = try await client.execute(uri: uri, method: .get, headers: headers)
            keep(response)
            return response
        }

        /// Posts the form of `page` (its action and CSRF token) with `fields`.
        mutating func submit(_ client: some TestClientProtocol, _ page: TestResponse, _ fields: [(String, String)], csrf: Bool = true)
            async throws -> TestResponse
        {
            let html = String(buffer: page.body)
            let action = try #require(AuthorizationCodeFlowTests.attribute("action", in: html)).replacingOccurrences(of: "&amp;", with: "&")
            var body = fields
            if csrf { body.append(("csrf", try AccountPagesTests.csrfToken(in: html))) }
            let response = try await client.execute(
                uri: action, method: .post, headers: AccountPagesTests.formHeaders(cookie: cookie, origin: issuer),
                body: ByteBuffer(string: AuthorizationCodeFlowTests.encode(body)))
            keep(response)
            return response
        }
    }

    static func attribute(_ name: String, in html: String) -> String? {
        guard let start = html.range(of: "\(name)=\"")?.upperBound else { return nil }
        return String(html[start...].prefix { $0 != "\"" })
    }

    /// The query parameters of a redirect's `Location`.
    static func parameters(_ response: TestResponse) throws -> [String: String] {
        let location = try #require(response.headers[.location])
        let query = try #require(location.split(separator: "?", maxSplits: 1).last)
        var parameters: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            parameters[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return parameters
    }

    /// The phone app's code `code`, exchanged with `verifier`.
    static func exchange(_ client: some TestClientProtocol, code: String, verifier: String) async throws -> TestResponse {
        try await token(
            client,
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", native), ("client_id", "phone-app"),
                ("code_verifier", verifier),
            ])
    }

    /// alice signed in (in `browser`) for the phone app, and its tokens.
    static func signedInTokens(_ client: some TestClientProtocol, _ browser: inout Browser) async throws -> [String: Any] {
        let pkce = pkce()
        let code = try #require(
            try parameters(try await signIn(client, &browser, query: authorizeQuery(challenge: pkce.challenge)))["code"])
        return try await exchange(client, code: code, verifier: pkce.verifier).json()
    }

    static func token(_ client: some TestClientProtocol, _ fields: [(String, String)], basic: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        if let basic { headers[.authorization] = "Basic " + Data(basic.utf8).base64EncodedString() }
        return try await client.execute(uri: "/oauth/token", method: .post, headers: headers, body: ByteBuffer(string: encode(fields)))
    }

    struct IDToken: JWTPayload {
        var iss: IssuerClaim
        var sub: SubjectClaim
        var aud: AudienceClaim
        var exp: ExpirationClaim
        var nonce: String?
        var atHash: String?
        var sid: String?
        var amr: [String]
        var authTime: Int

        enum CodingKeys: String, CodingKey {
            case iss, sub, aud, exp, nonce, sid, amr
            case atHash = "at_hash"
            case authTime = "auth_time"
        }

        func verify(using algorithm: some JWTAlgorithm) async throws { try exp.verifyNotExpired() }
    }

    static func verified(_ idToken: String, client: some TestClientProtocol, audience: String) async throws -> IDToken {
        let jwks = try await client.execute(uri: "/.well-known/jwks.json", method: .get)
        let keys = JWTKeyCollection()
        try await keys.add(jwksJSON: String(buffer: jwks.body))
        let token = try await keys.verify(idToken, as: IDToken.self)
        #expect(token.iss.value == issuer)
        try token.aud.verifyIntendedAudience(includes: audience)
        return token
    }

    /// Signs alice in on the sign-in page of `query`: the redirect with the code.
    static func signIn(_ client: some TestClientProtocol, _ browser: inout Browser, query: String) async throws -> TestResponse {
        let page = try await browser.get(client, "/authorize?" + query)
        #expect(page.status == .ok)
        return try await browser.submit(client, page, [("username", "alice"), ("password", password)])
    }

    @Test func aPublicAppSignsInWithPKCEAndGetsTokensAnIDTokenAndUserInfo() async throws {
        let fixture = try await Self.fixture()
        try await fixture.test { client in
            let pkce = Self.pkce()
            var browser = Browser()
            let page = try await browser.get(client, "/authorize?" + Self.authorizeQuery(challenge: pkce.challenge))
            #expect(page.status == .ok)
            let html = String(buffer: page.body)
            #expect(html.contains(#"autocomplete="username webauthn""#) && html.contains(#"autocomplete="current-password""#))
            #expect(html.contains(#"<html lang="en">"#))
            AccountPagesTests.expectPageHeaders(page, html: html)
            // The form may lead on to the app's redirect URI (its private-use scheme), nowhere else.
            #expect(page.headers[.contentSecurityPolicy]?.contains("form-action 'self' com.example.app:;") == true)
            #expect(browser.cookie?.hasPrefix("__Host-authd_browser=") == true)

            let redirect = try await browser.submit(client, page, [("username", "alice"), ("password", Self.password)])
            #expect(redirect.status == .seeOther)
            #expect(redirect.headers[.location]?.hasPrefix(Self.native + "?code=") == true)
            let answer = try Self.parameters(redirect)
            #expect(answer["state"] == "st4te" && answer["iss"] == Self.issuer)
            let code = try #require(answer["code"])

            let exchanged = try await Self.exchange(client, code: code, verifier: pkce.verifier)
            #expect(exchanged.status == .ok)
            let tokens = try exchanged.json()
            let access = try #require(tokens["access_token"] as? String)
            #expect(tokens["token_type"] as? String == "Bearer")
            #expect(tokens["scope"] as? String == "openid profile email offline_access")
            #expect(tokens["refresh_token"] is String)
            let idToken = try #require(tokens["id_token"] as? String)
            let claims = try await Self.verified(idToken, client: client, audience: "phone-app")
            #expect(claims.nonce == "n0nce" && claims.amr == ["pwd"])
            #expect(claims.atHash == TokenHash.of(access, algorithm: "RS256"))
            #expect(String(buffer: try await client.execute(uri: "/.well-known/jwks.json", method: .get).body).contains(#""RS256""#))

            let info = try await client.execute(uri: "/userinfo", method: .get, headers: [.authorization: "Bearer \(access)"])
            #expect(info.status == .ok)
            // RFC 6750 §2.2: the token in a POST's form (pyoidc's way), never with the header too.
            let posted = try await client.execute(
                uri: "/userinfo", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "access_token=\(access)"))
            #expect(posted.status == .ok)
            let both = try await client.execute(
                uri: "/userinfo", method: .post,
                headers: [.contentType: "application/x-www-form-urlencoded", .authorization: "Bearer \(access)"],
                body: ByteBuffer(string: "access_token=\(access)"))
            #expect(both.status == .badRequest)
            let user = try info.json()
            #expect(user["sub"] as? String == claims.sub.value && user["preferred_username"] as? String == "alice")
            // A client's access token is not one of authd's own routes'.
            #expect(
                try await client.execute(uri: "/me", method: .get, headers: [.authorization: "Bearer \(access)"]).status == .unauthorized)
            // Nor is an ID token an access token (RFC 9068 §4).
            #expect(
                try await client.execute(uri: "/userinfo", method: .get, headers: [.authorization: "Bearer \(idToken)"]).status
                    == .unauthorized)

            // The browser is signed in: the next request gets its code at once.
            let again = try await browser.get(
                client, "/authorize?" + Self.authorizeQuery(state: "second", challenge: Self.pkce().challenge))
            #expect(again.status == .seeOther)
            #expect(try Self.parameters(again)["state"] == "second")
        }
    }

    @Test func aCodeIsGoodOnceForItsClientRedirectURIAndVerifier() async throws {
        let fixture = try await Self.fixture()
        try await fixture.test { client in
            var browser = Browser()
            func code(_ challenge: String) async throws -> String {
                let redirect = try await browser.get(client, "/authorize?" + Self.authorizeQuery(challenge: challenge))
                if redirect.status == .seeOther { return try #require(try Self.parameters(redirect)["code"]) }
                return try #require(
                    try Self.parameters(try await browser.submit(client, redirect, [("username", "alice"), ("password", Self.password)]))[
                        "code"])
            }
            func exchange(_ code: String, verifier: String?, redirectURI: String = Self.native, client id: String = "phone-app")
                async throws
                -> TestResponse
            {
                var fields = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI), ("client_id", id)]
                if let verifier { fields.append(("code_verifier", verifier)) }
                return try await Self.token(client, fields)
            }
            // A wrong or missing verifier, or another redirect URI: refused, and the code is spent.
            for attempt in [(Self.pkce().verifier, Self.native), (nil, Self.native), (nil as String?, "com.example.app:/other")] {
                let pkce = Self.pkce()
                let spent = try await code(pkce.challenge)
                let refused = try await exchange(spent, verifier: attempt.0, redirectURI: attempt.1)
                #expect(try refused.status == .badRequest && refused.error().code == "invalid_grant")
                #expect(try await exchange(spent, verifier: pkce.verifier).status == .badRequest)
            }
            // Another client cannot redeem it.
            let pkce = Self.pkce()
            let stolen = try await code(pkce.challenge)
            let other = try await Self.token(
                client,
                [("grant_type", "authorization_code"), ("code", stolen), ("redirect_uri", Self.native), ("code_verifier", pkce.verifier)],
                basic: "photos:photos-secret-0123456789abcdef0123456789")
            #expect(try other.status == .badRequest && other.error().code == "invalid_grant")

            // A replay refuses the code and ends the session its first use started (RFC 6749 §4.1.2).
            let fresh = Self.pkce()
            let good = try await code(fresh.challenge)
            let first = try await exchange(good, verifier: fresh.verifier)
            #expect(first.status == .ok)
            let access = try #require(try first.json()["access_token"] as? String)
            let refresh = try #require(try first.json()["refresh_token"] as? String)
            #expect(try await client.execute(uri: "/userinfo", method: .get, headers: [.authorization: "Bearer \(access)"]).status == .ok)
            let replay = try await exchange(good, verifier: fresh.verifier)
            #expect(try replay.status == .badRequest && replay.error().code == "invalid_grant")
            #expect(
                try await client.execute(uri: "/userinfo", method: .get, headers: [.authorization: "Bearer \(access)"]).status
                    == .unauthorized)
            let refreshed = try await Self.token(
                client, [("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", "phone-app")])
            #expect(refreshed.status == .badRequest)
        }
    }

    @Test func aRequestNotKnownGoodIsRefusedOnAuthdsPageAndNeverRedirected() async throws {
        let fixture = try await Self.fixture()
        try await fixture.test { client in
            for query in [
                Self.authorizeQuery(redirectURI: "https://evil.example/cb", challenge: Self.pkce().challenge),
                Self.authorizeQuery(client: "nobody", challenge: Self.pkce().challenge),
                Self.authorizeQuery(redirectURI: "com.example.app:/callback/../evil", challenge: Self.pkce().challenge),
            ] {
                let refused = try await client.execute(uri: "/authorize?" + query, method: .get)
                #expect(refused.status == .badRequest)
                #expect(refused.headers[.location] == nil)
                #expect(String(buffer: refused.body).contains(#"id="detail""#))
            }
            // Known client and URI: the error goes back, with state and iss (RFC 9207).
            for (query, error) in [
                (Self.authorizeQuery(challenge: nil), "invalid_request"),  // a public client without PKCE
                (Self.authorizeQuery(challenge: Self.pkce().challenge, extra: [("prompt", "none")]), "login_required"),
                (Self.authorizeQuery(scope: "openid admin", challenge: Self.pkce().challenge), "invalid_scope"),
            ] {
                let answer = try await client.execute(uri: "/authorize?" + query, method: .get)
                #expect(answer.status == .seeOther, "\(error)")
                let parameters = try Self.parameters(answer)
                #expect(parameters["error"] == error && parameters["state"] == "st4te" && parameters["iss"] == Self.issuer)
            }
            // plain PKCE is refused.
            let plain = Self.authorizeQuery(
                challenge: nil, extra: [("code_challenge", String(repeating: "a", count: 43)), ("code_challenge_method", "plain")])
            #expect(try Self.parameters(try await client.execute(uri: "/authorize?" + plain, method: .get))["error"] == "invalid_request")
        }
    }

    @Test func aThirdPartySiteAsksConsentOnceAndADenialIsAccessDenied() async throws {
        let fixture = try await Self.fixture()
        try await fixture.test { client in
            var browser = Browser()
            let query = Self.authorizeQuery(client: "photos", redirectURI: Self.web, scope: "openid email", challenge: nil)
            let consent = try await Self.signIn(client, &browser, query: query)
            #expect(consent.status == .ok)
            let html = String(buffer: consent.body)
            #expect(html.contains(#"data-scope="email""#) && html.contains(#"name="decision" value="allow""#))
            #expect(consent.headers[.contentSecurityPolicy]?.contains("form-action 'self' https://photos.example.com;") == true)

            let denied = try await browser.submit(client, consent, [("decision", "deny")])
            #expect(try Self.parameters(denied)["error"] == "access_denied")
            #expect(denied.headers[.location]?.hasPrefix(Self.web + "?") == true)

            let asked = try await browser.get(client, "/authorize?" + query)
            let allowed = try await browser.submit(client, asked, [("decision", "allow")])
            let code = try #require(try Self.parameters(allowed)["code"])
            // Remembered: the same scopes again go straight through; prompt=consent asks again.
            #expect(try await browser.get(client, "/authorize?" + query).status == .seeOther)
            #expect(try await browser.get(client, "/authorize?" + query + "&prompt=consent").status == .ok)

            let exchanged = try await Self.token(
                client, [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", Self.web)],
                basic: "photos:photos-secret-0123456789abcdef0123456789")
            #expect(exchanged.status == .ok)
            let tokens = try exchanged.json()
            // No offline_access and not first-party: no refresh token (OpenID Connect Core §11).
            #expect(tokens["refresh_token"] == nil)
            let idToken = try #require(tokens["id_token"] as? String)
            let header = try #require(Base64URL.decode(String(idToken.split(separator: ".")[0])))
            #expect(String(decoding: header, as: UTF8.self).contains(#""alg":"ES256""#))
            _ = try await Self.verified(idToken, client: client, audience: "photos")
            let access = try #require(tokens["access_token"] as? String)
            let info = try await client.execute(uri: "/userinfo", method: .get, headers: [.authorization: "Bearer \(access)"])
            #expect(try info.json()["preferred_username"] == nil)
            // A confidential client without its secret is not let in.
            let anonymous = try await Self.token(client, [("grant_type", "authorization_code"), ("code", "x"), ("client_id", "photos")])
            #expect(try anonymous.status == .unauthorized && anonymous.error().code == "invalid_client")
        }
    }

    @Test func aFormWithoutItsTokenActsOnNothing() async throws {
        let fixture = try await Self.fixture()
        try await fixture.test { client in
            var browser = Browser()
            let page = try await browser.get(client, "/authorize?" + Self.authorizeQuery(challenge: Self.pkce().challenge))
            let forged = try await browser.submit(client, page, [("username", "alice"), ("password", Self.password)], csrf: false)
            #expect(forged.status == .forbidden && forged.headers[.location] == nil)
            let wrong = try await browser.submit(client, page, [("username", "alice"), ("password", "wrong password here")])
            #expect(wrong.status == .unauthorized && String(buffer: wrong.body).contains(#"id="error""#))
        }
    }

    @Test func aClientsRefreshTokenIsItsAloneAndRotates() async throws {
        let fixture = try await Self.fixture()
        try await fixture.test { client in
            var browser = Browser()
            let tokens = try await Self.signedInTokens(client, &browser)
            let refresh = try #require(tokens["refresh_token"] as? String)
            // Not at authd's own refresh route, nor for another client.
            #expect(try await client.postJSON("/token/refresh", #"{"refresh_token":"\#(refresh)"}"#).status == .unauthorized)
            let other = try await Self.token(
                client, [("grant_type", "refresh_token"), ("refresh_token", refresh)],
                basic: "photos:photos-secret-0123456789abcdef0123456789")
            #expect(other.status == .badRequest)
            let rotated = try await Self.token(
                client, [("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", "phone-app")])
            #expect(rotated.status == .ok)
            let next = try rotated.json()
            #expect(next["scope"] as? String == "openid profile email offline_access" && next["refresh_token"] as? String != refresh)
            let access = try #require(next["access_token"] as? String)
            #expect(try await client.execute(uri: "/userinfo", method: .get, headers: [.authorization: "Bearer \(access)"]).status == .ok)
            // Reuse of the rotated token ends the session.
            #expect(
                try await Self.token(client, [("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", "phone-app")])
                    .status == .badRequest)
            #expect(
                try await client.execute(uri: "/userinfo", method: .get, headers: [.authorization: "Bearer \(access)"]).status
                    == .unauthorized)
        }
    }

    @Test func loggingOutEndsTheBrowserSignInAndItsSessionsAndRedirectsOnlyWhereRegistered() async throws {
        let fixture = try await Self.fixture()
        try await fixture.test { client in
            var browser = Browser()
            let tokens = try await Self.signedInTokens(client, &browser)
            let idToken = try #require(tokens["id_token"] as? String)
            let access = try #require(tokens["access_token"] as? String)

            // Not a registered URI: no redirect, nothing ended.
            let open = try await browser.get(
                client, "/logout?" + Self.encode([("id_token_hint", idToken), ("post_logout_redirect_uri", "https://evil.example/")]))
            #expect(open.status == .badRequest && open.headers[.location] == nil)
            #expect(try await client.execute(uri: "/userinfo", method: .get, headers: [.authorization: "Bearer \(access)"]).status == .ok)
            // Without a hint, the user is asked first.
            let ask = try await browser.get(client, "/logout")
            #expect(ask.status == .ok && String(buffer: ask.body).contains(#"id="sign-out""#))

            let out = try await browser.get(
                client,
                "/logout?"
                    + Self.encode([
                        ("id_token_hint", idToken), ("post_logout_redirect_uri", "com.example.app:/signed-out"), ("state", "bye"),
                    ]))
            #expect(out.status == .seeOther && out.headers[.location] == "com.example.app:/signed-out?state=bye")
            #expect(
                try await client.execute(uri: "/userinfo", method: .get, headers: [.authorization: "Bearer \(access)"]).status
                    == .unauthorized)
            // Signed out: the next request shows the sign-in page again.
            #expect(try await browser.get(client, "/authorize?" + Self.authorizeQuery(challenge: Self.pkce().challenge)).status == .ok)
        }
    }

    /// The end-session endpoint takes a form too (RP-Initiated Logout 1.0 §2), at the path of
    /// authd's own JSON logout, which keeps working.
    @Test func aFormPostedToLogoutEndsTheSignInAndJSONStillLogsOut() async throws {
        let fixture = try await Self.fixture()
        try await fixture.test { client in
            var browser = Browser()
            let tokens = try await Self.signedInTokens(client, &browser)
            let idToken = try #require(tokens["id_token"] as? String)
            let access = try #require(tokens["access_token"] as? String)
            var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded", .origin: "https://app.example.com"]
            headers[.cookie] = browser.cookie
            let out = try await client.execute(
                uri: "/logout", method: .post, headers: headers,
                body: ByteBuffer(
                    string: Self.encode([("id_token_hint", idToken), ("post_logout_redirect_uri", "com.example.app:/signed-out")])))
            #expect(out.status == .seeOther && out.headers[.location] == "com.example.app:/signed-out")
            #expect(
                try await client.execute(uri: "/userinfo", method: .get, headers: [.authorization: "Bearer \(access)"]).status
                    == .unauthorized)

            let login = try await client.login("alice", Self.password).json()
            let refresh = try #require(login["refresh_token"] as? String)
            #expect(try await client.postJSON("/logout", #"{"refresh_token":"\#(refresh)"}"#).status == .noContent)
        }
    }

    /// `response_mode=form_post` (OAuth 2.0 Form Post Response Mode): the answer is a page
    /// whose form the browser posts to the redirect URI — the only place its policy lets a form
    /// go besides authd — with the code, the state and iss.
    @Test func formPostAnswersWithAPageThatPostsToTheRedirectURI() async throws {
        let fixture = try await Self.fixture()
        try await fixture.test { client in
            var browser = Browser()
            let query = Self.authorizeQuery(challenge: Self.pkce().challenge, extra: [("response_mode", "form_post")])
            let page = try await Self.signIn(client, &browser, query: query)
            #expect(page.status == .ok && page.headers[.location] == nil)
            let html = String(buffer: page.body)
            #expect(html.contains(#"<form method="post" action="com.example.app:/callback" id="response">"#))
            #expect(html.contains(#"name="state" value="st4te""#) && html.contains(#"name="iss" value="https://auth.example.com""#))
            #expect(html.contains(#"name="code" value=""#))
            #expect(page.headers[.contentSecurityPolicy]?.contains("form-action 'self' com.example.app:;") == true)
            let nonce = try #require(page.headers[.contentSecurityPolicy]?.split(separator: "'").first { $0.hasPrefix("nonce-") })
            #expect(html.contains(#"<script nonce="\#(nonce.dropFirst(6))">"#))
        }
    }

    /// A signed-in browser is asked to sign in again when `prompt=login` or `max_age` say so,
    /// and the new sign-in answers the request (no loop back to the form); `prompt=none` then
    /// goes straight through.
    @Test func promptLoginAndMaxAgeAskForANewSignIn() async throws {
        let fixture = try await Self.fixture()
        try await fixture.test { client in
            var browser = Browser()
            _ = try await Self.signIn(client, &browser, query: Self.authorizeQuery(challenge: Self.pkce().challenge))
            for extra in [[("prompt", "login")], [("max_age", "0")]] {
                let query = Self.authorizeQuery(challenge: Self.pkce().challenge, extra: extra)
                // Nor does the passkey script's way back take a sign-in it did not make for this request.
                let resumed = try await browser.get(client, "/authorize/resume?" + query)
                #expect(
                    resumed.status == .seeOther && resumed.headers[.location]?.hasPrefix("/authorize?response_type=code") == true,
                    "\(extra)")
                let page = try await browser.get(client, "/authorize?" + query)
                #expect(page.status == .ok && String(buffer: page.body).contains(#"id="sign-in""#), "\(extra)")
                let again = try await browser.submit(client, page, [("username", "alice"), ("password", Self.password)])
                #expect(try again.status == .seeOther && Self.parameters(again)["code"] != nil, "\(extra)")
            }
            let silent = try await browser.get(
                client, "/authorize?" + Self.authorizeQuery(challenge: Self.pkce().challenge, extra: [("prompt", "none")]))
            #expect(try silent.status == .seeOther && Self.parameters(silent)["code"] != nil)
        }
    }

    /// With sign-up open and messages delivered, the sign-in page links to a sign-up page,
    /// whose new account goes straight on with the request, and to a forgot-password page,
    /// whose link is sent to the account's address.
    @Test func theSignInPageLinksToSignUpAndToAPasswordReset() async throws {
        try await AccountPagesTests.withPages { mailbox, fixture in
            var fixture = try await Self.registered(fixture)
            fixture.configuration.signUpOpen = true
            try await fixture.withDatabase { database in
                _ = try await database.client.query(
                    "UPDATE users SET email = 'alice@example.com' WHERE username = 'alice'", logger: TestCluster.logger)
            }
            try await fixture.test { client in
                var browser = Browser()
                let query = Self.authorizeQuery(challenge: Self.pkce().challenge)
                let signIn = try await browser.get(client, "/authorize?" + query)
                let html = String(buffer: signIn.body)
                let signUpLink = try #require(Self.link("sign-up", in: html))
                #expect(signUpLink.hasPrefix("/authorize/sign-up?"))

                let form = try await browser.get(client, signUpLink.replacingOccurrences(of: "&amp;", with: "&"))
                #expect(form.status == .ok && String(buffer: form.body).contains(#"autocomplete="new-password""#))
                let taken = try await browser.submit(client, form, [("username", "alice"), ("password", "another good passphrase")])
                #expect(taken.status == .conflict && String(buffer: taken.body).contains(#"id="error""#))
                let created = try await browser.submit(client, taken, [("username", "nadia"), ("password", "another good passphrase")])
                #expect(
                    try created.status == .seeOther && Self.parameters(created)["code"] != nil, "the new account goes on with the request")

                var other = Browser()
                let page = try await other.get(client, "/authorize?" + query)
                let forgotLink = try #require(Self.link("forgot-password", in: String(buffer: page.body)))
                let forgot = try await other.get(client, forgotLink.replacingOccurrences(of: "&amp;", with: "&"))
                let sent = try await other.submit(client, forgot, [("username", "alice")])
                #expect(sent.status == .ok && String(buffer: sent.body).contains(#"id="back-to-sign-in""#))
                let message = try await mailbox.next(within: .seconds(60))
                #expect((message.json["link"] as? String)?.contains("/account/password-reset?token=") == true)
            }
        }
    }

    /// The `href` of the link whose id is `id`.
    static func link(_ id: String, in html: String) -> String? {
        guard let tag = html.range(of: #"id="\#(id)""#) else { return nil }
        let start = html[..<tag.lowerBound].range(of: "<a ", options: .backwards)?.lowerBound ?? tag.lowerBound
        return attribute("href", in: String(html[start...]))
    }

    @Test func aSecondFactorIsAskedOnItsOwnPageAndNamedInTheIDToken() async throws {
        var fixture = try await Self.fixture()
        let clock = TestClock(now: Date(timeIntervalSince1970: 1_700_000_015))
        fixture.configuration.clock = clock
        try await fixture.test { client in
            let (key, recoveryCodes) = try await SecondFactorTests.turnOn(client, "alice", clock: clock)
            var browser = Browser()
            let pkce = Self.pkce()
            let second = try await Self.signIn(client, &browser, query: Self.authorizeQuery(challenge: pkce.challenge))
            #expect(second.status == .ok)
            let html = String(buffer: second.body)
            #expect(html.contains(#"autocomplete="one-time-code""#) && html.contains(#"name="recovery_code""#))
            let wrong = try await browser.submit(client, second, [("code", SecondFactorTests.other(than: key.code(at: clock.now)))])
            #expect(wrong.status == .unauthorized)
            clock.advance(by: 30)
            let redirect = try await browser.submit(client, wrong, [("code", key.code(at: clock.now))])
            let code = try #require(try Self.parameters(redirect)["code"])
            let tokens = try await Self.exchange(client, code: code, verifier: pkce.verifier).json()
            let idToken = try #require(tokens["id_token"] as? String)
            let payload = try #require(Base64URL.decode(String(idToken.split(separator: ".")[1])))
            let claims = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
            #expect(claims["amr"] as? [String] == ["pwd", "otp", "mfa"] && claims["acr"] as? String == "2")

            // A recovery code works in a fresh browser too.
            var other = Browser()
            let step = try await Self.signIn(client, &other, query: Self.authorizeQuery(challenge: Self.pkce().challenge))
            let recovered = try await other.submit(client, step, [("recovery_code", recoveryCodes[0])])
            #expect(try recovered.status == .seeOther && Self.parameters(recovered)["code"] != nil)
        }
    }
}
