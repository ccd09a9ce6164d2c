import AuthCore
import Foundation
import Testing

/// `/authorize`'s checks: errors about the client or its redirect URI are shown, never
/// redirected; the rest go back to the registered URI with the state.
@Suite struct AuthorizationRequestTests {
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"  // RFC 7636 appendix B
    static let phone = try! OAuthClient.register(
        id: "phone-app", audiences: [],
        signIn: OIDCClientSettings(redirectURIs: ["com.example.app:/callback", "http://127.0.0.1/cb"], isPublic: true),
        now: Date()
    ).client
    static let web = try! OAuthClient.register(
        id: "web-app", audiences: [], signIn: OIDCClientSettings(redirectURIs: ["https://app.example.com/cb"], scopes: ["openid"]),
        now: Date()
    ).client
    static let api = try! OAuthClient.register(id: "orders-api", audiences: [], now: Date()).client

    static func parse(_ query: [String: String], adding extra: [(String, String)] = []) async throws -> AuthorizationRequest {
        let parameters = query.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) } + extra.map { (name: $0.0, value: $0.1) }
        return try await AuthorizationRequest.parse(parameters) { id in [phone, web, api].first { $0.id == id } }
    }

    static let good = [
        "response_type": "code", "client_id": "phone-app", "redirect_uri": "http://127.0.0.1:51000/cb", "scope": "openid email",
        "state": "af0ifjsldkj", "nonce": "n-0S6_WzA2Mj", "code_challenge": challenge, "code_challenge_method": "S256",
    ]

    @Test func aGoodRequestIsRead() async throws {
        let request = try await Self.parse(Self.good.merging(["prompt": "login", "max_age": "300", "ui_locales": "ja en"]) { $1 })
        #expect(request.client.id == "phone-app" && request.redirectURI == "http://127.0.0.1:51000/cb")
        #expect(request.scopes == ["openid", "email"] && request.isOpenIDConnect)
        #expect(request.state == "af0ifjsldkj" && request.nonce == "n-0S6_WzA2Mj" && request.codeChallenge == Self.challenge)
        #expect(request.prompt == [.login] && request.maxAge == 300 && request.uiLocales == ["ja", "en"])
        #expect(request.responseMode == .query)
        // A confidential client may leave PKCE out.
        let web = try await Self.parse([
            "response_type": "code", "client_id": "web-app", "redirect_uri": "https://app.example.com/cb", "scope": "openid",
            "response_mode": "form_post",
        ])
        #expect(web.codeChallenge == nil && web.responseMode == .formPost)
    }

    /// Nothing about an unknown client or an unregistered URI is sent anywhere but authd's page.
    @Test(arguments: [
        ["client_id": nil], ["client_id": "nobody"], ["client_id": "orders-api"], ["redirect_uri": nil],
        ["redirect_uri": "https://evil.example/cb"], ["redirect_uri": "http://127.0.0.1:51000/cb/../x"],
        ["redirect_uri": "com.example.app:/callback#x"],
    ])
    func unknownClientsAndURIsAreShownNotRedirected(_ change: [String: String?]) async throws {
        var query = Self.good
        for (key, value) in change { query[key] = value }
        #expect(Self.isShown(await Self.refusal(query)), "\(change)")
    }

    @Test func aRepeatedClientOrRedirectURIIsShown() async throws {
        for name in ["client_id", "redirect_uri"] {
            #expect(Self.isShown(await Self.refusal(Self.good, adding: [(name, Self.good[name] ?? "")])), "\(name)")
        }
    }

    static func refusal(_ query: [String: String], adding extra: [(String, String)] = []) async -> AuthorizationRequest.Refusal? {
        do {
            _ = try await parse(query, adding: extra)
            return nil
        } catch {
            return error as? AuthorizationRequest.Refusal
        }
    }

    static func isShown(_ refusal: AuthorizationRequest.Refusal?) -> Bool {
        if case .shown? = refusal { true } else { false }
    }

    @Test(
        arguments: [
            (["response_type": "token"], "unsupported_response_type"), (["response_type": nil], "unsupported_response_type"),
            (["scope": nil], "invalid_scope"), (["scope": "openid admin"], "invalid_scope"),
            (["code_challenge": nil, "code_challenge_method": nil], "invalid_request"),
            (["code_challenge_method": "plain"], "invalid_request"),
            (["code_challenge_method": nil], "invalid_request"), (["code_challenge": "short"], "invalid_request"),
            (["code_challenge": nil], "invalid_request"), (["prompt": "none login"], "invalid_request"),
            (["prompt": "select_account"], "account_selection_required"), (["prompt": "always"], "invalid_request"),
            (["max_age": "-1"], "invalid_request"), (["response_mode": "fragment"], "invalid_request"),
            (["request": "eyJ..."], "request_not_supported"), (["request_uri": "https://x.example/r"], "request_uri_not_supported"),
            (["nonce": String(repeating: "n", count: 1025)], "invalid_request"),
        ] as [([String: String?], String)])
    func otherErrorsGoBackWithTheState(_ change: [String: String?], _ error: String) async throws {
        var query = Self.good
        for (key, value) in change { query[key] = value }
        do {
            _ = try await Self.parse(query)
            Issue.record("accepted \(change)")
        } catch let refusal as AuthorizationRequest.Refusal {
            #expect(
                refusal
                    == .redirected(
                        error: error, description: Self.description(refusal), redirectURI: "http://127.0.0.1:51000/cb",
                        state: "af0ifjsldkj",
                        mode: .query), "\(change)")
        }
    }

    @Test func aRepeatedParameterGoesBackAsInvalid() async throws {
        await #expect(throws: AuthorizationRequest.Refusal.self) { try await Self.parse(Self.good, adding: [("scope", "openid")]) }
        // A parameter without a value counts as omitted (RFC 6749 §3.1).
        let request = try await Self.parse(Self.good, adding: [("login_hint", "")])
        #expect(request.loginHint == nil)
    }

    @Test func aScopeTheClientMayNotAskForIsRefused() async throws {
        var query = [
            "response_type": "code", "client_id": "web-app", "redirect_uri": "https://app.example.com/cb", "scope": "openid email",
        ]
        await #expect(throws: AuthorizationRequest.Refusal.self) { try await Self.parse(query) }
        query["scope"] = "openid"
        #expect(try await Self.parse(query).scopes == ["openid"])
    }

    static func description(_ refusal: AuthorizationRequest.Refusal) -> String {
        if case .redirected(_, let description, _, _, _) = refusal { description } else { "" }
    }
}
