import Foundation
import JOSE
import WebForms

/// A browser's sign-in at a provider, authd its relying party (OpenID Connect Core §3.1.2,
/// RFC 6749 §4.1): what authd asked the provider with, kept sealed in the browser's cookie
/// until the provider sends the browser back to authd's callback. The callback takes the
/// answer only with the cookie whose `state` it carries (the login CSRF defence of RFC 9700
/// §4.7.1: the answer is this browser's own request's), exchanges the code with the PKCE
/// verifier (RFC 7636; for Apple only once it publishes S256) and the same redirect URI, and
/// takes the ID token only with this attempt's `nonce` (OIDC Core §3.1.2.1, §3.1.3.7), so a
/// code or token from another browser's flow is useless here.
///
/// Sign in with Apple answers by `form_post` (a cross-site POST), so the cookie is
/// `SameSite=None`; the attempt lives ten minutes and is ended by its callback.
///
/// ```swift
/// let attempt = ProviderSignInAttempt.start(provider: google, redirectURI: "https://auth.example.com/federation/callback",
///                                           resume: flowQuery, now: clock.now)
/// return redirect(to: attempt.authorizationURL(at: google))
/// ```
public struct ProviderSignInAttempt: Sendable, Equatable, Codable {
    /// How long the provider has to send the browser back.
    public static let lifetime: TimeInterval = 10 * 60

    /// The provider's name.
    public var provider: String
    /// The `state` asked with (256 bits, base64url).
    public var state: String
    /// The `nonce` asked with (256 bits, base64url): the ID token must carry it as it is.
    public var nonce: String
    /// The PKCE verifier; nil for Apple while it publishes no PKCE.
    public var codeVerifier: String?
    /// The redirect URI asked with: authd's callback.
    public var redirectURI: String
    /// What the sign-in is for: the parameters of authd's own authorization request (form
    /// encoded), which goes on once the browser is signed in.
    public var resume: String
    /// When it ends.
    public var expiresAt: Date

    enum CodingKeys: String, CodingKey {
        case provider = "p"
        case state = "s"
        case nonce = "n"
        case codeVerifier = "v"
        case redirectURI = "r"
        case resume = "q"
        case expiresAt = "exp"
    }

    /// A new attempt at `provider`, with fresh `state`, `nonce` and PKCE verifier.
    public static func start(provider: IdentityProvider, redirectURI: String, resume: String, now: Date) -> ProviderSignInAttempt {
        // RFC 9700 §2.1.1: PKCE always, a server without it ignoring the parameters (RFC 6749
        // §3.1, §3.2); for Apple, whose documentation names none, only once it publishes S256.
        let pkce = provider.kind != .apple || provider.metadata.codeChallengeMethods?.contains("S256") == true
        return ProviderSignInAttempt(
            provider: provider.name, state: SecureRandom.base64URLText(length: 43), nonce: SecureRandom.base64URLText(length: 43),
            codeVerifier: pkce ? SecureRandom.base64URLText(length: 64) : nil, redirectURI: redirectURI, resume: resume,
            expiresAt: now.addingTimeInterval(lifetime))
    }

    /// Where the browser goes: the provider's authorization endpoint with the request
    /// (OIDC Core §3.1.2.1): the provider's first client id, its scopes, `form_post` for
    /// Apple (which requires it when asking for the name or email), and the app's
    /// `login_hint` passed on, as Keycloak and Auth0 pass it to their identity providers.
    public func authorizationURL(at provider: IdentityProvider, loginHint: String? = nil) -> String {
        var parameters: [(name: String, value: String)] = [
            ("response_type", "code"), ("client_id", provider.clientIDs[0]), ("redirect_uri", redirectURI),
            ("scope", provider.scopes.joined(separator: " ")), ("state", state), ("nonce", nonce),
        ]
        if let codeVerifier {
            parameters += [("code_challenge", PKCE.challenge(of: codeVerifier)), ("code_challenge_method", "S256")]
        }
        if provider.kind == .apple { parameters.append(("response_mode", "form_post")) }
        if let loginHint, !loginHint.isEmpty { parameters.append(("login_hint", loginHint)) }
        let endpoint = provider.metadata.authorizationEndpoint
        return endpoint + (endpoint.contains("?") ? "&" : "?") + FormEncoding.encode(parameters)
    }

    /// Whether the callback's `state` is this attempt's (compared in constant time).
    public func accepts(state presented: String?) -> Bool {
        guard let presented else { return false }
        return ConstantTime.equal(Array(presented.utf8), Array(state.utf8))
    }
}
