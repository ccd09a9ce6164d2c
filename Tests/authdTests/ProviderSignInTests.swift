import AsyncHTTPClient
import AuthTestSupport
import ContractRunner
import ContractTestSupport
import Crypto
import Foundation
import JOSE
import LoginClient
import NIOCore
import NIOHTTP1
import ProcessKit
import Testing

/// Native sign-in (`POST /login/id-token`) with ID tokens of real OpenID providers, added
/// with `authd provider add` (which finds each through its discovery document): a second
/// authd, signed in to through its own pages, and an independent provider from PyPI
/// (oidc-provider-mock, whose tokens carry no `kid`).
@Suite struct ProviderSignInTests {
    static let light = ["--argon2-memory", "1024", "--argon2-iterations", "1"]
    static let rawNonce = "the app's raw nonce"

    /// A page-driving HTTP client: no redirect followed, the cookie kept.
    final class Pages: Sendable {
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))

        func send(_ url: String, method: HTTPMethod = .GET, form: [(String, String)]? = nil, headers: [(String, String)] = [])
            async throws -> (status: Int, headers: HTTPHeaders, body: String)
        {
            var request = HTTPClientRequest(url: url)
            request.method = method
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            if let form {
                request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
                request.body = .bytes(ByteBuffer(string: Self.encode(form)))
            }
            let response = try await client.execute(request, timeout: .seconds(60))
            let body = try await response.body.collect(upTo: 1 << 20)
            return (Int(response.status.code), response.headers, String(buffer: body))
        }

        static func encode(_ fields: [(String, String)]) -> String {
            fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0.1)" }.joined(separator: "&")
        }

        /// The value of `name="…"`'s `value` (or of the first `attribute="…"`) in `html`.
        static func attribute(_ attribute: String, in html: String, after marker: String = "") -> String? {
            guard let from = marker.isEmpty ? html.startIndex : html.range(of: marker)?.upperBound,
                let start = html[from...].range(of: "\(attribute)=\"")?.upperBound
            else { return nil }
            return String(html[start...].prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
        }

        /// The query parameters of a redirect's `Location`.
        static func parameters(_ location: String?) -> [String: String] {
            var parameters: [String: String] = [:]
            for pair in (location?.split(separator: "?", maxSplits: 1).last ?? "").split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
                parameters[parts[0]] = parts.count > 1 ? parts[1] : ""
            }
            return parameters
        }

        func shutdown() async { try? await client.shutdown() }
    }

    /// A PKCE pair (RFC 7636 §4.1, §4.2).
    static func pkce() -> (verifier: String, challenge: String) {
        let verifier = SecureRandom.base64URLText(length: 64)
        return (verifier, Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8)))))
    }

    /// The query of an authorization request of `client` whose nonce is the SHA-256 of the
    /// app's raw nonce, as a native app asks.
    static func authorizeQuery(client: String, redirectURI: String, challenge: String) -> String {
        Pages.encode([
            ("response_type", "code"), ("client_id", client), ("redirect_uri", redirectURI), ("scope", "openid email profile"),
            ("state", "st4te"), ("nonce", SHA256.hexDigest(of: rawNonce)), ("code_challenge", challenge),
            ("code_challenge_method", "S256"),
        ])
    }

    /// A downstream authd with sign-up open, the provider at `issuer` added as `name` for
    /// `clientID` with the CLI; `body` gets its base URL.
    static func withDownstream(provider name: String, issuer: String, clientID: String, _ body: (URL) async throws -> Void) async throws {
        let database = try await TestCluster.newMigratedDatabase()
        let url = ["--database-url", database.url]
        let added = try await AuthdBinary.run(["provider", "add", name, "--issuer", issuer, "--client-id", clientID] + url)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("added provider \(name) (oidc): issuer \(issuer)"))
        let listed = try await AuthdBinary.run(["provider", "list"] + url)
        #expect(listed.stdout.contains(name) && listed.stdout.contains(issuer))
        _ = try await AuthdBinary.withServer(url + light + ["--signup", "open"]) { base in try await body(base) }
    }

    /// Signs in at `base` with `idToken` of `provider` as the example app does
    /// (Examples/LoginClient, as an iOS app posts Apple's token): the access token; and a
    /// second use of the token is refused.
    static func signIn(_ base: URL, provider: String, idToken: String) async throws -> String {
        let api = LoginAPI(baseURL: base)
        let access = try await api.signIn(provider: provider, idToken: idToken, nonce: rawNonce).accessToken
        let (identitiesStatus, identities) = try await AuthdBinary.get(base, "me/identities", bearer: access)
        #expect(identitiesStatus == 200)
        #expect((identities["identities"] as? [[String: Any]])?.first?["provider"] as? String == provider)
        await #expect(throws: LoginError.invalidCredentials) {
            try await api.signIn(provider: provider, idToken: idToken, nonce: rawNonce)
        }
        return access
    }

    @Test func anotherAuthdIsTheProvider() async throws {
        let database = try await TestCluster.newMigratedDatabase()
        let url = ["--database-url", database.url]
        let port = try ProviderProcess.freePort()
        let issuer = "http://127.0.0.1:\(port)"
        #expect(
            try await AuthdBinary.run(["user", "add", "alice", "--password-stdin"] + url + Self.light, input: BrowserPageTests.password)
                .status
                == 0)
        let client = try await AuthdBinary.run(
            ["client", "add", "photos-ios", "--public", "--first-party", "--redirect-uri", "http://127.0.0.1/cb"] + url)
        #expect(client.status == 0, "\(client.stderr)")
        let pages = Pages()
        do {
            _ = try await AuthdBinary.withServer(url + Self.light + ["--port", String(port), "--public-url", issuer]) { _ in
                // alice signs in on the upstream's own page, as in the app's browser sheet.
                let (verifier, challenge) = Self.pkce()
                let redirectURI = "http://127.0.0.1:9/cb"
                let page = try await pages.send(
                    issuer + "/authorize?" + Self.authorizeQuery(client: "photos-ios", redirectURI: redirectURI, challenge: challenge))
                #expect(page.status == 200)
                let cookie = try #require(page.headers["Set-Cookie"].first?.split(separator: ";").first.map(String.init))
                let action = try #require(Pages.attribute("action", in: page.body))
                let csrf = try #require(Pages.attribute("value", in: page.body, after: #"name="csrf""#))
                let signedIn = try await pages.send(
                    issuer + action, method: .POST,
                    form: [("username", "alice"), ("password", BrowserPageTests.password), ("csrf", csrf)],
                    headers: [("Cookie", cookie), ("Origin", issuer), ("Sec-Fetch-Site", "same-origin")])
                #expect(signedIn.status == 303 || signedIn.status == 302, "\(signedIn.body)")
                let code = try #require(Pages.parameters(signedIn.headers["Location"].first)["code"])
                let tokens = try await pages.send(
                    issuer + "/oauth/token", method: .POST,
                    form: [
                        ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI), ("client_id", "photos-ios"),
                        ("code_verifier", verifier),
                    ])
                #expect(tokens.status == 200, "\(tokens.body)")
                let json = try #require(try JSONSerialization.jsonObject(with: Data(tokens.body.utf8)) as? [String: Any])
                let idToken = try #require(json["id_token"] as? String)
                // The downstream finds the upstream through its discovery document, and checks
                // the token with its keys.
                try await Self.withDownstream(provider: "upstream", issuer: issuer, clientID: "photos-ios") { base in
                    _ = try await Self.signIn(base, provider: "upstream", idToken: idToken)
                }
            }
        } catch {
            await pages.shutdown()
            throw error
        }
        await pages.shutdown()
    }

    /// oidc-provider-mock on a free port, signing carol in, for `body` (its issuer, and the
    /// page client).
    static func withMock(_ body: (String, Pages) async throws -> Void) async throws {
        let program = try #require(
            PythonTools.program("oidc-provider-mock", from: "oidc-provider-mock", separate: "oidc-provider-mock"),
            "oidc-provider-mock could not be installed from PyPI")
        let port = try ProviderProcess.freePort()
        let issuer = "http://127.0.0.1:\(port)"
        let claims = #"{"sub":"carol","email":"carol@example.com","email_verified":true,"name":"Carol"}"#
        let mock = try ChildProcess(executable: program, arguments: ["--port", String(port), "--user-claims", claims], mergeErrors: true)
        defer {
            mock.send(SIGTERM)
            mock.wait()
        }
        let pages = Pages()
        do {
            var ready = false
            for _ in 0..<300 where !ready {
                ready = (try? await pages.send(issuer + "/.well-known/openid-configuration").status) == 200
                if !ready { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(ready, "\(mock.standardOutput)")
            try await body(issuer, pages)
        } catch {
            await pages.shutdown()
            throw error
        }
        await pages.shutdown()
    }

    /// authd the relying party of oidc-provider-mock in the browser flow, driven over HTTP: the
    /// sign-in page's button, the mock's authorization request found through its discovery
    /// document (code, PKCE S256, state, nonce), its consent form posted for carol, and the
    /// callback that exchanges the code and lands back in the app's authorization request.
    @Test func authdIsTheRelyingPartyOfAnIndependentProvider() async throws {
        try await Self.withMock { issuer, pages in
            let database = try await TestCluster.newMigratedDatabase()
            let url = ["--database-url", database.url]
            let added = try await AuthdBinary.run(
                ["provider", "add", "mock", "--issuer", issuer, "--client-id", "notes-web", "--client-secret-stdin", "--create-accounts"]
                    + url, input: "any-secret")
            #expect(added.status == 0, "\(added.stderr)")
            let client = try await AuthdBinary.run(
                ["client", "add", "notes", "--public", "--first-party", "--redirect-uri", "http://127.0.0.1:9/cb"] + url)
            #expect(client.status == 0, "\(client.stderr)")
            let port = try ProviderProcess.freePort()
            let own = "http://127.0.0.1:\(port)"
            _ = try await AuthdBinary.withServer(url + Self.light + ["--port", String(port), "--public-url", own]) { _ in
                let (_, challenge) = Self.pkce()
                let page = try await pages.send(
                    own + "/authorize?" + Self.authorizeQuery(client: "notes", redirectURI: "http://127.0.0.1:9/cb", challenge: challenge))
                #expect(page.status == 200)
                var cookies = page.headers["Set-Cookie"].compactMap { $0.split(separator: ";").first.map(String.init) }
                let start = try #require(page.body.range(of: #"action="/authorize/provider?"#)).upperBound
                let action =
                    "/authorize/provider?" + String(page.body[start...].prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
                let csrf = try #require(Pages.attribute("value", in: page.body, after: #"name="csrf""#))
                let started = try await pages.send(
                    own + action, method: .POST, form: [("csrf", csrf), ("provider", "mock")],
                    headers: [("Cookie", cookies.joined(separator: "; ")), ("Origin", own), ("Sec-Fetch-Site", "same-origin")])
                #expect(started.status == 303, "\(started.body)")
                cookies += started.headers["Set-Cookie"].compactMap { $0.split(separator: ";").first.map(String.init) }
                let authorization = try #require(started.headers["Location"].first)
                #expect(authorization.hasPrefix(issuer))
                let asked = Pages.parameters(authorization)
                #expect(asked["code_challenge_method"] == "S256" && asked["redirect_uri"] == own + "/federation/callback")
                // The mock's consent form, posted for carol: back to authd's callback.
                let consented = try await pages.send(authorization, method: .POST, form: [("sub", "carol")])
                #expect(consented.status == 302, "\(consented.body)")
                let callback = try #require(consented.headers["Location"].first)
                #expect(callback.hasPrefix(own + "/federation/callback?"))
                let back = try await pages.send(callback, headers: [("Cookie", cookies.joined(separator: "; "))])
                #expect(back.status == 303, "\(back.body)")
                let landed = Pages.parameters(back.headers["Location"].first)
                #expect(back.headers["Location"].first?.hasPrefix("http://127.0.0.1:9/cb?") == true)
                #expect(landed["code"] != nil && landed["state"] == "st4te")
            }
        }
    }

    @Test func anIndependentProviderFromPyPIIsTheProvider() async throws {
        try await Self.withMock { issuer, pages in
            // Its consent form, posted for carol; it authenticates the client by any secret.
            let (verifier, challenge) = Self.pkce()
            let redirectURI = "http://127.0.0.1:9/cb"
            let authorized = try await pages.send(
                issuer + "/oauth2/authorize?" + Self.authorizeQuery(client: "notes-ios", redirectURI: redirectURI, challenge: challenge),
                method: .POST, form: [("sub", "carol")])
            #expect(authorized.status == 302, "\(authorized.body)")
            let code = try #require(Pages.parameters(authorized.headers["Location"].first)["code"])
            let tokens = try await pages.send(
                issuer + "/oauth2/token", method: .POST,
                form: [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI), ("code_verifier", verifier)],
                headers: [("Authorization", "Basic " + Data("notes-ios:any-secret".utf8).base64EncodedString())])
            #expect(tokens.status == 200, "\(tokens.body)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(tokens.body.utf8)) as? [String: Any])
            let idToken = try #require(json["id_token"] as? String)
            try await Self.withDownstream(provider: "mock", issuer: issuer, clientID: "notes-ios") { base in
                let access = try await Self.signIn(base, provider: "mock", idToken: idToken)
                // Its verified email names the new account.
                let (_, me) = try await AuthdBinary.get(base, "me", bearer: access)
                #expect(me["username"] as? String == "carol@example.com")
            }
        }
    }
}
