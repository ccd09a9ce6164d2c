import AuthTestSupport
import ContractRunner
import Foundation
import Testing

/// Sign-in with an upstream provider in a real browser: a second authd is the provider (an
/// OpenID provider with its own pages, on `localhost`, so its cookies are not the
/// downstream's on `127.0.0.1`), added to the downstream with `authd provider add`. Chromium
/// clicks the provider's button on the downstream's sign-in page, signs in on the
/// upstream's page, comes back to the downstream's callback, and lands in the app with a
/// code whose tokens say `fed`. (In `SignInBrowserTests`, whose browsers run one at a time.)
extension SignInBrowserTests {
    @Test func theProviderButtonSignsInThroughAnotherAuthd() async throws {
        let upstreamDatabase = try await TestCluster.newMigratedDatabase()
        let upstreamURL = ["--database-url", upstreamDatabase.url]
        let upstreamPort = try ProviderProcess.freePort()
        let issuer = "http://localhost:\(upstreamPort)"
        #expect(
            try await AuthdBinary.run(
                ["user", "add", "robin", "--password-stdin"] + upstreamURL + BrowserPageTests.light, input: Self.password
            )
            .status == 0)
        let downstreamPort = try ProviderProcess.freePort()
        let callback = "http://127.0.0.1:\(downstreamPort)/federation/callback"
        let client = try await AuthdBinary.run(
            ["client", "add", "downstream", "--public", "--first-party", "--redirect-uri", callback] + upstreamURL)
        #expect(client.status == 0, "\(client.stderr)")
        _ = try await AuthdBinary.withServer(
            upstreamURL + BrowserPageTests.light + ["--port", String(upstreamPort), "--public-url", issuer]
        ) { _ in
            let database = try await TestCluster.newMigratedDatabase()
            let url = ["--database-url", database.url]
            let appPort = try ProviderProcess.freePort()
            let added = try await AuthdBinary.run(
                ["provider", "add", "upstream", "--issuer", issuer, "--client-id", "downstream", "--create-accounts"] + url)
            #expect(added.status == 0, "\(added.stderr)")
            #expect(
                try await AuthdBinary.run(
                    ["client", "add", "notes", "--public", "--first-party", "--redirect-uri", "http://127.0.0.1/cb"] + url
                ).status == 0)
            let serve =
                url + BrowserPageTests.light + ["--port", String(downstreamPort), "--public-url", "http://127.0.0.1:\(downstreamPort)"]
            _ = try await AuthdBinary.withServer(serve) { base in
                let first = Self.authorize(base, appPort: appPort, state: "fed")
                let seen = try Self.browse(
                    [
                        "authorize": first.url,
                        "provider": ["button": "provider-upstream", "username": "robin", "password": Self.password],
                        "token_endpoint": "\(base.absoluteString.trimmingSuffix("/"))/oauth/token", "client_id": "notes",
                        "code_verifier": first.verifier,
                    ], appPort: appPort, name: "provider", language: "en")
                let pages = (seen["pages"] as? [[String: String]] ?? []).map { $0["heading"] ?? "" }
                #expect(pages.first == "Sign in" && pages.dropFirst().first == "Sign in" && pages.last == "Back at the app")
                #expect(seen["button"] as? String == "Continue with upstream")
                #expect((seen["provider_page"] as? String)?.hasPrefix(issuer + "/authorize?") == true)
                let landed = try #require((seen["landed"] as? [String])?.first)
                #expect(Self.query(landed)["state"] == "fed")
                let tokens = try #require(seen["tokens"] as? [String: Any])
                let claims = try Self.claims(of: try #require(tokens["id_token"] as? String))
                #expect(claims["amr"] as? [String] == ["fed"])
                let console = seen["console"] as? [String] ?? ["no console"]
                #expect(console == [], "the pages broke their Content Security Policy, or failed otherwise")
                // The account made for the identity is the one the tokens are for.
                let access = try #require(tokens["access_token"] as? String)
                let (status, info) = try await AuthdBinary.get(base, "userinfo", bearer: access)
                #expect(status == 200 && info["sub"] as? String == claims["sub"] as? String)
            }
        }
    }
}
