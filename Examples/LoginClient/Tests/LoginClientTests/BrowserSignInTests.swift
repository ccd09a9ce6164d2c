import ContractStub
import Foundation
import LoginClient
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The app's browser sign-in (OpenID Connect's code flow with PKCE) against the stub built
/// from authd's contracts (contracts/app-sign-in.yaml, which CI proves authd answers alike).
/// The test is the system browser: it opens the authorization URL at the stub and hands the
/// redirect back to the app; the app checks `state` and `iss`, exchanges the code with its
/// verifier, and verifies the ID token against the stub's published keys (signature, nonce,
/// `at_hash`).
@Suite struct BrowserSignInTests {
    static let redirectURI = "http://127.0.0.1:7777/callback"
    /// The interaction a signed-in browser's authorization request gets, without a page.
    static let signedInBrowser = "the browser signed in, that allowed phone-app, gets its code at once, without a page"

    let stub: ContractStub
    let api: LoginAPI

    init() throws {
        stub = try ContractStub(directory: authdContracts)
        api = LoginAPI(baseURL: try #require(URL(string: "https://auth.example")), session: stub.urlSession)
    }

    @Test func signsInAtOnceAsABrowserThatIsSignedIn() async throws {
        try stub.resume(at: Self.signedInBrowser)
        let pending = try await api.beginSignIn(clientID: "phone-app", redirectURI: Self.redirectURI, scopes: ["openid", "profile"])
        let callback = try await redirect(of: try await open(pending.url))
        let signedIn = try await api.finishSignIn(callback: callback, pending: pending)
        #expect(signedIn.methods == ["pwd"])
        #expect(UUID(uuidString: signedIn.subject) != nil)
        #expect(stub.unmatched.isEmpty, "\(stub.unmatched)")
    }

    @Test func signsInThroughThePagesAsABrowserPostsThem() async throws {
        let pending = try await api.beginSignIn(clientID: "phone-app", redirectURI: Self.redirectURI, scopes: ["openid", "profile"])
        let signIn = try form(in: try await open(pending.url))
        let consent = try form(
            in: try await post(signIn.action, ["csrf": signIn.csrf, "username": "peggy", "password": "correct horse battery staple"]))
        let callback = try await redirect(of: try await post(consent.action, ["csrf": consent.csrf, "decision": "allow"]))
        let signedIn = try await api.finishSignIn(callback: callback, pending: pending)
        #expect(signedIn.methods == ["pwd"])
        // The pages' forms carried the request back: the stub matched each step to the sign-in the app began.
        #expect(stub.unmatched.isEmpty, "\(stub.unmatched)")
        #expect(stub.exchanges.compactMap(\.interaction).contains("allowing sends the browser back to phone-app with a code"))
    }

    @Test func refusesAnotherSignInsAnswerAndAUsedCode() async throws {
        try stub.resume(at: Self.signedInBrowser)
        let pending = try await api.beginSignIn(clientID: "phone-app", redirectURI: Self.redirectURI, scopes: ["openid", "profile"])
        let callback = try await redirect(of: try await open(pending.url))
        let other = try await api.beginSignIn(clientID: "phone-app", redirectURI: Self.redirectURI, scopes: ["openid", "profile"])
        await #expect(throws: SignInError.notThisSignIn) { try await api.finishSignIn(callback: callback, pending: other) }
        _ = try await api.finishSignIn(callback: callback, pending: pending)
        await #expect(throws: SignInError.codeRefused("invalid_grant")) { try await api.finishSignIn(callback: callback, pending: pending) }
    }

    /// What a browser gets for `url`: the stub's session does not follow redirects.
    func open(_ url: URL) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await stub.urlSession.data(from: url)
        return (data, try #require(response as? HTTPURLResponse))
    }

    /// A form posted as a browser posts it, to the page's action.
    func post(_ action: String, _ fields: [String: String]) async throws -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: try #require(URL(string: action, relativeTo: URL(string: "https://auth.example"))))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        request.httpBody = Data(
            fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
                .joined(separator: "&").utf8)
        let (data, response) = try await stub.urlSession.data(for: request)
        return (data, try #require(response as? HTTPURLResponse))
    }

    /// The redirect back to the app.
    func redirect(of answer: (Data, HTTPURLResponse)) async throws -> URL {
        #expect(answer.1.statusCode == 303)
        return try #require(answer.1.value(forHTTPHeaderField: "Location").flatMap(URL.init(string:)))
    }

    /// The page's form: its action (entities decoded) and its anti-forgery token.
    func form(in answer: (Data, HTTPURLResponse)) throws -> (action: String, csrf: String) {
        #expect(answer.1.statusCode == 200)
        let page = String(decoding: answer.0, as: UTF8.self)
        let action = try #require(page.firstMatch(of: /<form[^>]* action="([^"]*)"/)?.1)
        let csrf = try #require(page.firstMatch(of: /name="csrf" value="([^"]*)"/)?.1)
        return (action.replacingOccurrences(of: "&amp;", with: "&"), String(csrf))
    }
}
