import Foundation
import WebForms

/// What `/authorize` sends back to a client's redirect URI (RFC 6749 §4.1.2, §4.1.2.1): a
/// code, or an error, with the request's `state` and authd's `iss` (RFC 9207, so a client
/// talking to several providers can tell which one answered and cannot be mixed up).
///
/// ```swift
/// let response = AuthorizationResponse.code(code, for: request, issuer: "https://auth.example.com")
/// response.location   // "https://app.example.com/cb?code=…&state=af0ifjsldkj&iss=https%3A%2F%2Fauth.example.com"
/// ```
public struct AuthorizationResponse: Sendable, Equatable {
    /// The redirect URI it goes to.
    public var redirectURI: String
    /// Its parameters, in order.
    public var parameters: [(name: String, value: String)]
    /// In the query of a redirect, or as a form the browser posts (`form_post`).
    public var mode: AuthorizationRequest.ResponseMode

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.redirectURI == rhs.redirectURI && lhs.mode == rhs.mode && lhs.parameters.elementsEqual(rhs.parameters) { $0 == $1 }
    }

    /// The code for `request`.
    public static func code(_ code: String, for request: AuthorizationRequest, issuer: String) -> Self {
        Self(
            redirectURI: request.redirectURI,
            parameters: [("code", code)] + (request.state.map { [("state", $0)] } ?? []) + [("iss", issuer)], mode: request.responseMode)
    }

    /// A refusal that goes back to the client; nil for one that must only be shown.
    public static func error(_ refusal: AuthorizationRequest.Refusal, issuer: String) -> Self? {
        guard case .redirected(let error, let description, let redirectURI, let state, let mode) = refusal else { return nil }
        return Self(
            redirectURI: redirectURI,
            parameters: [("error", error), ("error_description", description)] + (state.map { [("state", $0)] } ?? [])
                + [("iss", issuer)], mode: mode)
    }

    /// The redirect URI with the parameters added to its query, form-encoded (RFC 6749
    /// Appendix B), keeping the query it has (RFC 6749 §3.1.2): where a `query` answer sends
    /// the browser.
    public var location: String {
        redirectURI + (redirectURI.contains("?") ? "&" : "?") + FormEncoding.encode(parameters)
    }
}
