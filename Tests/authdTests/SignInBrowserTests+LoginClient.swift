import Foundation
import LoginClient
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The example app's browser sign-in (Examples/LoginClient) against a live authd: it builds
/// the authorization URL with PKCE, Chromium signs in on authd's pages and comes back to the
/// app's loopback redirect URI, and the app checks the answer, exchanges the code and checks
/// the ID token; what is not its sign-in's is refused. (In `SignInBrowserTests`, whose
/// browsers run one at a time.)
extension SignInBrowserTests {
    @Test func theExampleAppSignsInThroughTheBrowserAndChecksWhatComesBack() async throws {
        try await Self.withAuthd { base, appPort, _ in
            let api = LoginAPI(baseURL: base)
            let pending = try await api.beginSignIn(
                clientID: "notes", redirectURI: "http://127.0.0.1:\(appPort)/cb", scopes: ["openid", "profile"])
            #expect(pending.url.path == "/authorize" && pending.url.query?.hasPrefix("response_type=code&client_id=notes") == true)
            let seen = try await Self.browse(
                ["authorize": pending.url.absoluteString, "username": "alice", "password": BrowserPageTests.password, "consent": "allow"],
                appPort: appPort, name: "login-client", language: "en")
            let callback = try #require((seen["landed"] as? [String])?.first.flatMap(URL.init(string:)))

            // Another sign-in's answer, or another issuer's, is not this one's.
            let other = try await api.beginSignIn(clientID: "notes", redirectURI: "http://127.0.0.1:\(appPort)/cb")
            await #expect(throws: SignInError.notThisSignIn) { try await api.finishSignIn(callback: callback, pending: other) }
            let mixedUp = try #require(
                URL(string: callback.absoluteString.replacingOccurrences(of: "iss=", with: "iss=https%3A%2F%2Fevil.example")))
            await #expect(throws: SignInError.notThisSignIn) { try await api.finishSignIn(callback: mixedUp, pending: pending) }

            let signedIn = try await api.finishSignIn(callback: callback, pending: pending)
            #expect(signedIn.methods == ["pwd"] && !signedIn.subject.isEmpty)
            #expect(signedIn.refreshToken == nil, "a third-party app without offline_access gets no refresh token")
            // The code is spent.
            await #expect(throws: SignInError.codeRefused("invalid_grant")) {
                try await api.finishSignIn(callback: callback, pending: pending)
            }
        }
    }
}
