import AuthTestSupport
import ContractRunner
import Crypto
import Foundation
import ProcessKit
import Testing

/// Sign-in with an upstream provider in a real browser: a second authd is the provider (an
/// OpenID provider with its own pages, on `localhost`, so its cookies are not the
/// downstream's on `127.0.0.1`), added to the downstream with `authd provider add`. Chromium
/// clicks the provider's button on the downstream's sign-in page, signs in on the
/// upstream's page, comes back to the downstream's callback, and lands in the app with a
/// code whose tokens say `fed`. Its browsers run one at a time, beside `SignInBrowserTests`'
/// (the two chains one after the other had been the suite's longest).
@Suite(.serialized) struct UpstreamSignInBrowserTests {
    @Test func theProviderButtonSignsInThroughAnotherAuthd() async throws {
        let upstreamDatabase = try await TestCluster.newMigratedDatabase()
        let upstreamURL = ["--database-url", upstreamDatabase.url]
        let upstreamPort = try ProviderProcess.freePort()
        let issuer = "http://localhost:\(upstreamPort)"
        #expect(
            try await AuthdBinary.run(
                ["user", "add", "robin", "--password-stdin"] + upstreamURL + BrowserPageTests.light, input: SignInBrowserTests.password
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
                let first = SignInBrowserTests.authorize(base, appPort: appPort, state: "fed")
                let seen = try await SignInBrowserTests.browse(
                    [
                        "authorize": first.url,
                        "provider": ["button": "provider-upstream", "username": "robin", "password": SignInBrowserTests.password],
                        "token_endpoint": "\(base.absoluteString.trimmingSuffix("/"))/oauth/token", "client_id": "notes",
                        "code_verifier": first.verifier,
                    ], appPort: appPort, name: "provider", language: "en")
                let pages = (seen["pages"] as? [[String: String]] ?? []).map { $0["heading"] ?? "" }
                #expect(pages.first == "Sign in" && pages.dropFirst().first == "Sign in" && pages.last == "Back at the app")
                #expect(seen["button"] as? String == "Continue with upstream")
                #expect((seen["provider_page"] as? String)?.hasPrefix(issuer + "/authorize?") == true)
                let landed = try #require((seen["landed"] as? [String])?.first)
                #expect(SignInBrowserTests.query(landed)["state"] == "fed")
                let tokens = try #require(seen["tokens"] as? [String: Any])
                let claims = try SignInBrowserTests.claims(of: try #require(tokens["id_token"] as? String))
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

/// Sign in with Apple and with Google in Chromium, Apple and Google played by `contract stub`
/// from contracts of their endpoints as their documentation describes them
/// (`Tests/authdTests/Providers`): the stub is reached as `localhost` and authd as
/// `127.0.0.1`, so Apple's `form_post` is the cross-site POST it is in production, which only
/// the `SameSite=None` attempt cookie comes with.
extension UpstreamSignInBrowserTests {
    static let providerContracts = BrowserPageTests.root.appendingPathComponent("Tests/authdTests/Providers")

    /// `contract stub` serving the contracts in `folder` on a free port, for `body`.
    static func withProviderStub(_ folder: String, _ body: (Int) async throws -> Void) async throws {
        let contract = try #require(BuiltExecutable.path(named: "contract"), "contract is not built beside the test runner")
        let port = try ProviderProcess.freePort()
        let stub = try ChildProcess(
            executable: contract, arguments: ["stub", providerContracts.appendingPathComponent(folder).path, "--port", String(port)],
            mergeErrors: true)
        defer {
            stub.send(SIGTERM)
            stub.wait()
        }
        var ready = false
        for _ in 0..<300 where !ready {
            // Any answer (a 501 for what no interaction matches) means it listens.
            ready = (try? await AuthdBinary.get(URL(string: "http://127.0.0.1:\(port)")!, "ready").0) != nil
            if !ready { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(ready, "\(stub.standardOutput)")
        try await body(port)
    }

    /// A downstream authd with the provider `add` adds, `notes` (first-party), signed in
    /// through the provider's button in Chromium; the ID token the app got. `then` runs while
    /// authd still runs, with its database options.
    static func signInThroughStub(
        provider: String, add: [String], input: String? = nil, name: String, then: ([String]) async throws -> Void = { _ in }
    ) async throws -> String {
        let database = try await TestCluster.newMigratedDatabase()
        let url = ["--database-url", database.url]
        let added = try await AuthdBinary.run(["provider", "add", provider, "--create-accounts"] + add + url, input: input)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(
            try await AuthdBinary.run(
                ["client", "add", "notes", "--public", "--first-party", "--redirect-uri", "http://127.0.0.1/cb"] + url
            )
            .status == 0)
        let port = try ProviderProcess.freePort()
        let appPort = try ProviderProcess.freePort()
        let serve = url + BrowserPageTests.light + ["--port", String(port), "--public-url", "http://127.0.0.1:\(port)"]
        return try await AuthdBinary.withServer(serve) { base in
            let first = SignInBrowserTests.authorize(base, appPort: appPort, state: provider)
            let seen = try await SignInBrowserTests.browse(
                [
                    "authorize": first.url, "provider": ["button": "provider-\(provider)"],
                    "token_endpoint": "\(base.absoluteString.trimmingSuffix("/"))/oauth/token", "client_id": "notes",
                    "code_verifier": first.verifier,
                ], appPort: appPort, name: name, language: "en")
            let landed = try #require((seen["landed"] as? [String])?.first)
            #expect(SignInBrowserTests.query(landed)["state"] == provider)
            let console = seen["console"] as? [String] ?? ["no console"]
            #expect(console == [], "the pages broke their Content Security Policy, or failed otherwise")
            let tokens = try #require(seen["tokens"] as? [String: Any])
            try await then(url)
            return try #require(tokens["id_token"] as? String)
        }.value
    }

    @Test func signInWithAppleAnswersByAFormPostAcrossSites() async throws {
        let folder = try TemporaryFolder("apple-key", files: ["AuthKey_KEY1234567.p8": P256.Signing.PrivateKey().pemRepresentation])
        defer { folder.remove() }
        let keyFile = folder.appending("AuthKey_KEY1234567.p8")
        try await Self.withProviderStub("apple") { port in
            let idToken = try await Self.signInThroughStub(
                provider: "apple",
                add: [
                    "--kind", "apple", "--issuer", "http://localhost:\(port)", "--client-id", "com.example.notes.web", "--team-id",
                    "TEAM123456", "--key-id", "KEY1234567", "--private-key-file", keyFile.path,
                ], name: "apple"
            ) { database in
                // App Store review's rule: the account deleted, its Apple token is revoked at
                // Apple's revocation endpoint (the stub answers only the form Apple documents).
                let deleted = try await AuthdBinary.run(["user", "delete", "river@privaterelay.appleid.com"] + database)
                #expect(deleted.status == 0, "\(deleted.stderr)")
                var audit = ""
                for _ in 0..<300 where !audit.contains("provider_token_revoked") {
                    try await Task.sleep(for: .milliseconds(100))
                    audit = try await AuthdBinary.run(["audit", "--limit", "5"] + database).stdout
                }
                #expect(audit.contains("provider_token_revoked"), "\(audit)")
            }
            let claims = try SignInBrowserTests.claims(of: idToken)
            #expect(claims["amr"] as? [String] == ["fed"])
        }
    }

    @Test func signInWithGoogleComesBackWithACodeAndPKCE() async throws {
        try await Self.withProviderStub("google") { port in
            let idToken = try await Self.signInThroughStub(
                provider: "google",
                add: [
                    "--kind", "google", "--issuer", "http://localhost:\(port)", "--client-id", "1234-web.apps.googleusercontent.com",
                    "--client-secret-stdin",
                ], input: "GOCSPX-test-secret", name: "google")
            let claims = try SignInBrowserTests.claims(of: idToken)
            #expect(claims["amr"] as? [String] == ["fed"])
        }
    }
}
