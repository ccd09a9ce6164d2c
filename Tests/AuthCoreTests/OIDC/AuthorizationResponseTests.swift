import AuthCore
import Foundation
import Testing

/// The answers `/authorize` sends back carry the state and the issuer (RFC 9207), and keep
/// the redirect URI's own query.
@Suite struct AuthorizationResponseTests {
    static let issuer = "https://auth.example.com"

    static func request(_ redirect: String, state: String? = "xyz", mode: String? = nil) async throws -> AuthorizationRequest {
        let client = try OAuthClient.register(
            id: "web-app", audiences: [], signIn: OIDCClientSettings(redirectURIs: [redirect]), now: Date()
        ).client
        var query = [("response_type", "code"), ("client_id", "web-app"), ("redirect_uri", redirect), ("scope", "openid")]
        if let state { query.append(("state", state)) }
        if let mode { query.append(("response_mode", mode)) }
        return try await AuthorizationRequest.parse(query.map { (name: $0.0, value: $0.1) }) { _ in client }
    }

    @Test func aCodeGoesBackWithTheStateAndTheIssuer() async throws {
        let response = AuthorizationResponse.code(
            "SplxlOBeZQQYbYS6WxSbIA", for: try await Self.request("https://app.example.com/cb"), issuer: Self.issuer)
        #expect(response.location == "https://app.example.com/cb?code=SplxlOBeZQQYbYS6WxSbIA&state=xyz&iss=https%3A%2F%2Fauth.example.com")
        let kept = AuthorizationResponse.code(
            "c", for: try await Self.request("https://app.example.com/cb?tenant=a%20b", state: nil), issuer: Self.issuer)
        #expect(kept.location == "https://app.example.com/cb?tenant=a%20b&code=c&iss=https%3A%2F%2Fauth.example.com")
        let native = AuthorizationResponse.code(
            "c", for: try await Self.request("com.example.app:/callback", state: "a&b=c"), issuer: Self.issuer)
        #expect(native.location == "com.example.app:/callback?code=c&state=a%26b%3Dc&iss=https%3A%2F%2Fauth.example.com")
        let posted = AuthorizationResponse.code(
            "c", for: try await Self.request("https://app.example.com/cb", mode: "form_post"), issuer: Self.issuer)
        #expect(posted.mode == .formPost && posted.parameters.map(\.name) == ["code", "state", "iss"])
    }

    @Test func anErrorGoesBackOnlyWhenItMay() {
        let refused = AuthorizationRequest.Refusal.redirected(
            error: "invalid_scope", description: "scope is required, such as openid", redirectURI: "https://app.example.com/cb", state: "s",
            mode: .query)
        #expect(
            AuthorizationResponse.error(refused, issuer: Self.issuer)?.location
                == "https://app.example.com/cb?error=invalid_scope&error_description=scope+is+required%2C+such+as+openid&state=s&iss=https%3A%2F%2Fauth.example.com"
        )
        #expect(AuthorizationResponse.error(.shown("no application named x signs users in here"), issuer: Self.issuer) == nil)
    }
}
