import AuthTestSupport
import ContractKit
import ContractRunner
import ContractTestSupport
import Crypto
import Foundation
import JOSE
import ProcessKit
import Testing

/// The OpenID Connect sign-in in a real browser: Debian's Chromium, driven by Selenium
/// (`Browser/sign_in.py`), against `authd serve`, for a public client registered with the
/// CLI whose redirect URI is a loopback address the script serves. Screenshots of each page
/// are kept in `.build-test/screenshots` (`oidc-…`).
@Suite(.serialized) struct SignInBrowserTests {
    static let password = BrowserPageTests.password
    static let script = BrowserPageTests.root.appendingPathComponent("Tests/authdTests/Browser/sign_in.py").path

    /// A running authd with `alice` and the client `notes` (public, third-party: it is asked
    /// consent), whose app the browser script serves at `appPort`; with its own address as
    /// its public URL (and so its issuer), or none, as `scripts/serve` runs it.
    static func withAuthd(
        publicURL: Bool = true, passkeys: Bool = false, _ body: @Sendable (URL, Int, TestCluster.TestDatabase) async throws -> Void
    ) async throws {
        let database = try await TestCluster.newMigratedDatabase()
        let port = try ProviderProcess.freePort()
        let appPort = try ProviderProcess.freePort()
        let url = ["--database-url", database.url]
        #expect(
            try await AuthdBinary.run(["user", "add", "alice", "--password-stdin"] + url + BrowserPageTests.light, input: password).status
                == 0)
        let added = try await AuthdBinary.run(
            [
                "client", "add", "notes", "--public", "--redirect-uri", "http://127.0.0.1/cb", "--post-logout-redirect-uri",
                "http://127.0.0.1:\(appPort)/bye",
            ] + url)
        #expect(added.status == 0, "\(added.stderr)")
        // Passkeys: authd is the relying party `localhost`, whose pages the browser opens there.
        let host = passkeys ? "localhost" : "127.0.0.1"
        let serve =
            url + BrowserPageTests.light + ["--port", String(port)] + (publicURL ? ["--public-url", "http://\(host):\(port)"] : [])
            + (passkeys ? ["--rp-id", "localhost", "--origin", "http://localhost:\(port)"] : [])
        _ = try await AuthdBinary.withServer(serve) { base in
            let base = passkeys ? URL(string: "http://localhost:\(port)/")! : base
            try await body(base, appPort, database)
        }
    }

    /// A PKCE pair and the authorization URL of `notes` with it.
    static func authorize(_ base: URL, appPort: Int, state: String, extra: String = "") -> (url: String, verifier: String) {
        let verifier = SecureRandom.base64URLText(length: 64)
        let challenge = Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))
        let query = [
            "response_type=code", "client_id=notes", "redirect_uri=http%3A%2F%2F127.0.0.1%3A\(appPort)%2Fcb",
            "scope=openid%20profile%20email", "state=\(state)", "nonce=n-\(state)", "code_challenge=\(challenge)",
            "code_challenge_method=S256",
        ].joined(separator: "&")
        return ("\(base.absoluteString.trimmingSuffix("/"))/authorize?\(query)\(extra)", verifier)
    }

    /// Runs the script with `plan`; what it saw.
    static func browse(_ plan: [String: Any], appPort: Int, name: String, language: String) async throws -> [String: Any] {
        let python = try #require(PythonTools.python(importing: "selenium", from: "selenium"), "selenium could not be installed from PyPI")
        try FileManager.default.createDirectory(at: BrowserPageTests.shots, withIntermediateDirectories: true)
        let planText = String(decoding: try JSONSerialization.data(withJSONObject: plan), as: UTF8.self)
        let result = try await CommandRunner.run(
            python,
            [script, planText, "--port", String(appPort), "--name", name, "--language", language, "--shots", BrowserPageTests.shots.path])
        #expect(result.status == 0, "\(result.output)")
        let line = try #require(result.output.split(separator: "\n").last.map(String.init))
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    static func query(_ url: String) -> [String: String] {
        var fields: [String: String] = [:]
        for item in URLComponents(string: url)?.queryItems ?? [] { fields[item.name] = item.value }
        return fields
    }

    static func claims(of jwt: String) throws -> [String: Any] {
        let payload = try #require(Base64URL.decode(String(jwt.split(separator: ".")[1])))
        return try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
    }

    /// The password, the consent page, the code exchanged for tokens; then a second request
    /// signed in without a form, a logout with the ID token that comes back to the app, and
    /// `prompt=none` answered `login_required` once signed out; first, a request with an
    /// unregistered redirect URI stays on authd's page. In a phone's window; authd runs as
    /// `scripts/serve` runs it, without a public URL: its origin is the request's, its issuer
    /// `authd`.
    @Test func aPasswordSignInConsentsSignsInAgainWithoutAFormAndSignsOut() async throws {
        try await Self.withAuthd(publicURL: false) { base, appPort, _ in
            let root = base.absoluteString.trimmingSuffix("/")
            let first = Self.authorize(base, appPort: appPort, state: "one")
            let again = Self.authorize(base, appPort: appPort, state: "two")
            let silent = Self.authorize(base, appPort: appPort, state: "three", extra: "&prompt=none")
            let logout =
                "\(root)/logout?id_token_hint={id_token}&post_logout_redirect_uri=http%3A%2F%2F127.0.0.1%3A\(appPort)%2Fbye&state=bye"
            let refused = first.url.replacingOccurrences(of: "127.0.0.1%3A\(appPort)", with: "evil.example")
            let seen = try await Self.browse(
                [
                    "refused": refused, "phone": true,
                    "authorize": first.url, "username": "alice", "password": Self.password, "consent": "allow",
                    "token_endpoint": "\(root)/oauth/token", "client_id": "notes", "code_verifier": first.verifier,
                    "then": [again.url, logout, silent.url],
                ], appPort: appPort, name: "password", language: "en")

            let pages = (seen["pages"] as? [[String: String]] ?? []).map { $0["name"] ?? "" }
            #expect(pages == ["refused", "sign-in", "consent", "app", "app", "app", "app"])
            // An unregistered redirect URI: authd's own page says why, and sends the browser nowhere.
            #expect((seen["pages"] as? [[String: String]])?.first?["heading"] == "This sign-in cannot go on")
            #expect((seen["refused_detail"] as? String)?.contains("did not register the redirect URI") == true)
            #expect((seen["pages"] as? [[String: String]])?.dropFirst().first?["heading"] == "Sign in")
            #expect((seen["pages"] as? [[String: String]])?.allSatisfy { $0["lang"] == "en" } == true)
            #expect(seen["autocomplete"] as? [String: String] == ["username": "username webauthn", "password": "current-password"])
            #expect(seen["scopes"] as? [String] == ["openid", "profile", "email"])
            let landed = seen["landed"] as? [String] ?? []
            #expect(landed.count == 4)
            #expect(Self.query(landed.first ?? "")["state"] == "one" && Self.query(landed.first ?? "")["iss"] == "authd")
            #expect(Self.query(landed.dropFirst().first ?? "")["code"] != nil, "signed in again without a form")
            #expect(landed.dropFirst(2).first == "http://127.0.0.1:\(appPort)/bye?state=bye")
            #expect(Self.query(landed.last ?? "")["error"] == "login_required")
            // Nothing in the console but the refused request's 400 (a CSP violation would be there).
            let console = (seen["console"] as? [String] ?? ["no console"]).filter { !$0.contains("status of 400") }
            #expect(console == [], "the pages broke their Content Security Policy, or failed otherwise")

            let tokens = try #require(seen["tokens"] as? [String: Any])
            let idToken = try #require(tokens["id_token"] as? String)
            let claims = try Self.claims(of: idToken)
            #expect(
                claims["aud"] as? [String] == ["notes"] && claims["nonce"] as? String == "n-one" && claims["amr"] as? [String] == ["pwd"])
            // Signed out: the client's session ended with the browser's.
            let access = try #require(tokens["access_token"] as? String)
            #expect(try await AuthdBinary.get(base, "userinfo", bearer: access).0 == 401)
        }
    }

    /// A passkey, registered through Chrome's virtual authenticator, signs in from the sign-in
    /// page: through the username field's autofill (conditional mediation), and through its
    /// button where the browser offers no such autofill; the ID token says how (RFC 8176
    /// `hwk`: the virtual authenticator's key is bound to it).
    @Test(arguments: ["autofill", "button"])
    func aPasskeySignsInFromTheSignInPage(mode: String) async throws {
        try await Self.withAuthd(passkeys: true) { base, appPort, _ in
            let root = base.absoluteString.trimmingSuffix("/")
            let (_, login) = try await AuthdBinary.login(base, "alice", Self.password)
            let access = try #require(login["access_token"] as? String)
            let request = Self.authorize(base, appPort: appPort, state: "passkey")
            let seen = try await Self.browse(
                [
                    "authorize": request.url, "passkey": ["access_token": access, "page": "\(root)/logout", "mode": mode],
                    "consent": "allow", "token_endpoint": "\(root)/oauth/token", "client_id": "notes", "code_verifier": request.verifier,
                ], appPort: appPort, name: "passkey-\(mode)", language: "en")
            #expect(seen["registered"] as? Int == 201, "\(seen["registered"] ?? "")")
            let pages = (seen["pages"] as? [[String: String]])?.map { $0["name"] ?? "" }
            if mode == "autofill" {
                #expect(seen["resumed"] as? Bool == true)
                #expect(pages == ["consent", "app"])
            } else {
                // No autofill offered: the page did not wait there, and its button asked.
                #expect(seen["conditional_mediation"] == nil || seen["conditional_mediation"] is NSNull)
                #expect(pages == ["sign-in", "consent", "app"])
            }
            #expect(seen["console"] as? [String] == [], "the page broke its Content Security Policy, or failed otherwise")
            let idToken = try #require((seen["tokens"] as? [String: Any])?["id_token"] as? String)
            #expect(try Self.claims(of: idToken)["amr"] as? [String] == ["hwk"])
        }
    }

    /// An account with an authenticator app: the second-factor page in Japanese, its code,
    /// and the ID token saying so; another browser uses a recovery code.
    @Test func aSecondFactorIsTypedOnItsPageAndARecoveryCodeWorksToo() async throws {
        try await Self.withAuthd { base, appPort, _ in
            let root = base.absoluteString.trimmingSuffix("/")
            let (_, login) = try await AuthdBinary.login(base, "alice", Self.password)
            let access = try #require(login["access_token"] as? String)
            let (_, enrolled) = try await AuthdBinary.post(base, "mfa/totp", [:], bearer: access)
            let totp = try TOTP(secret: try #require(enrolled["secret"] as? String))
            let (confirmedStatus, confirmed) = try await AuthdBinary.post(
                base, "mfa/totp/confirm", ["code": totp.code(at: Date())], bearer: access)
            #expect(confirmedStatus == 200)
            let recoveryCodes = try #require(confirmed["recovery_codes"] as? [String])

            // The next step's code: within the skew now, and never the step the confirmation used.
            let request = Self.authorize(base, appPort: appPort, state: "otp")
            let seen = try await Self.browse(
                [
                    "authorize": request.url, "username": "alice", "password": Self.password,
                    "code": totp.code(at: Date().addingTimeInterval(30)),
                    "token_endpoint": "\(root)/oauth/token", "client_id": "notes", "code_verifier": request.verifier,
                ], appPort: appPort, name: "totp", language: "ja")
            let pages = seen["pages"] as? [[String: String]] ?? []
            #expect(pages.map { $0["name"] ?? "" } == ["sign-in", "second-factor", "consent", "app"])
            #expect(pages.first?["heading"] == "サインイン" && pages.dropFirst().first?["heading"] == "2 段階認証")
            #expect(pages.dropLast().allSatisfy { $0["lang"] == "ja" })
            #expect((seen["autocomplete"] as? [String: String])?["code"] == "one-time-code")
            let idToken = try #require((seen["tokens"] as? [String: Any])?["id_token"] as? String)
            #expect(try Self.claims(of: idToken)["amr"] as? [String] == ["pwd", "otp", "mfa"])

            let recovery = Self.authorize(base, appPort: appPort, state: "recovery")
            let other = try await Self.browse(
                ["authorize": recovery.url, "username": "alice", "password": Self.password, "recovery_code": recoveryCodes[0]],
                appPort: appPort, name: "recovery", language: "en")
            // Consent was given already: straight back to the app with a code.
            #expect((other["pages"] as? [[String: String]])?.map { $0["name"] ?? "" } == ["sign-in", "second-factor", "app"])
            #expect(Self.query((other["landed"] as? [String])?.first ?? "")["code"] != nil)
        }
    }
}
