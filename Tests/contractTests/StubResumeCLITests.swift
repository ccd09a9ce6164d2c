import Foundation
import ProcessKit
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `contract stub --resume-at`: an app's first authorization request, at the endpoint the
/// stub's discovery document names, gets the answer of a signed-in browser, a redirect back
/// with a code, without a page.
@Suite struct StubResumeCLITests {
    /// Keeps a redirect as the answer, as a test of the app's redirect handling needs.
    final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }

    @Test func theFirstAuthorizationRequestGetsTheSignedInBrowsersRedirect() async throws {
        let child = try ChildProcess(
            executable: try ContractCLITests.binary("contract"),
            arguments: [
                "stub", AuthdContractTests.contracts.path, "--port", "0",
                "--resume-at", "the browser signed in, that allowed phone-app, gets its code at once, without a page",
            ]
        )
        defer { child.send(SIGTERM) }
        let base = try #require(try await ContractCLITests.announcement("contract stub listening on ", of: child))
        let query =
            "response_type=code&client_id=phone-app&redirect_uri=http%3A%2F%2F127.0.0.1%3A7777%2Fcallback&scope=openid%20profile"
            + "&state=the-apps-state&nonce=n&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256"
        let session = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)
        // As an app finds it: the discovery document names the stub's own endpoints.
        let (discovery, _) = try await session.data(from: try #require(URL(string: "\(base)/.well-known/openid-configuration")))
        let endpoints = try JSONSerialization.jsonObject(with: discovery) as? [String: Any]
        let authorize = try #require(endpoints?["authorization_endpoint"] as? String)
        #expect(authorize == "\(base)/authorize")
        let (_, response) = try await session.data(from: try #require(URL(string: "\(authorize)?\(query)")))
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 303)
        let location = try #require(http.value(forHTTPHeaderField: "Location").flatMap { URLComponents(string: $0) })
        #expect(location.path == "/callback")
        #expect(location.queryItems?.first { $0.name == "state" }?.value == "the-apps-state")
        #expect(location.queryItems?.first { $0.name == "code" }?.value?.isEmpty == false)
        child.send(SIGTERM)
        #expect(await child.waitForExit() == 0)
    }

    @Test func anInteractionNoContractHasExitsTwoBeforeServing() async throws {
        let child = try ChildProcess(
            executable: try ContractCLITests.binary("contract"),
            arguments: ["stub", AuthdContractTests.contracts.path, "--port", "0", "--resume-at", "no such interaction"]
        )
        #expect(await child.waitForExit() == 2)
        #expect(child.standardError.contains("--resume-at: no interaction is named 'no such interaction'"), "\(child.standardError)")
    }
}
