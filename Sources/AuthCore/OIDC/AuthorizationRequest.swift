import Foundation
import JOSE

/// A request to `/authorize` (OpenID Connect Core §3.1.2.1, RFC 6749 §4.1.1, RFC 7636 §4.3),
/// checked in the order that decides where an error goes: until the client and the redirect
/// URI are known good, an error is shown on authd's own page and never redirected (RFC 6749
/// §4.1.2.1, so authd is no open redirector); after, it goes back to the client with its
/// `state` and authd's `iss` (RFC 9207).
///
/// ```swift
/// let request = try await AuthorizationRequest.parse(parameters) { id in try await clients.client(id: id) }
/// request.scopes         // ["openid", "email"]
/// request.codeChallenge  // the S256 challenge the code will be bound to
/// ```
public struct AuthorizationRequest: Sendable, Equatable {
    /// What the client asks the user to be asked for again (OpenID Connect Core §3.1.2.1).
    public enum Prompt: String, Sendable, CaseIterable {
        case none, login, consent
    }

    /// How the answer goes back (OAuth 2.0 Multiple Response Type Encoding, Form Post Response Mode).
    public enum ResponseMode: String, Sendable, CaseIterable {
        case query
        case formPost = "form_post"
    }

    /// The client, found and able to sign users in.
    public var client: OAuthClient
    /// The redirect URI, one the client registered (``RedirectURI/accepts(_:)``).
    public var redirectURI: String
    /// The scopes asked for, each one the client may ask for, in the order written.
    public var scopes: [String]
    /// The client's opaque value, given back with the answer.
    public var state: String?
    /// The value the ID token will carry, against replay (OpenID Connect Core §3.1.2.1).
    public var nonce: String?
    /// The PKCE challenge (S256) the code is bound to; required of a public client.
    public var codeChallenge: String?
    public var prompt: Set<Prompt>
    /// The longest the user's sign-in may be ago, in seconds.
    public var maxAge: Int?
    public var loginHint: String?
    /// The languages the pages should use, most wanted first.
    public var uiLocales: [String]
    public var responseMode: ResponseMode

    /// Whether an ID token is asked for.
    public var isOpenIDConnect: Bool { scopes.contains("openid") }

    /// Why a request is refused, and where that is said.
    public enum Refusal: Error, Sendable, Equatable {
        /// Before the client or its redirect URI is known good: shown on authd's page only.
        case shown(String)
        /// To the client: `error` (RFC 6749 §4.1.2.1, OpenID Connect Core §3.1.2.6) and a
        /// description, sent to `redirectURI` with the request's `state`.
        case redirected(error: String, description: String, redirectURI: String, state: String?, mode: ResponseMode)
    }

    /// The longest `state` and `nonce` kept; longer ones are refused, not cut.
    public static let maximumValueLength = 1024

    /// Checks `parameters` (the query of a `GET`, or the form of a `POST`), finding the client
    /// with `client`.
    /// - Throws: ``Refusal``; what `client` throws (an unreachable database).
    public static func parse(
        _ parameters: [(name: String, value: String)], client lookup: (String) async throws -> OAuthClient?
    ) async throws -> AuthorizationRequest {
        var values: [String: String] = [:]
        var repeated: Set<String> = []
        // RFC 6749 §3.1: a parameter without a value is omitted; none may be sent twice.
        for (name, value) in parameters where !value.isEmpty {
            if values[name] != nil { repeated.insert(name) }
            values[name] = value
        }

        // Where the answer may go: not known until both are.
        guard !repeated.contains("client_id"), let clientID = values["client_id"] else {
            throw Refusal.shown("the request names no client (client_id), or names it twice")
        }
        guard let client = try await lookup(clientID), client.signIn.signsUsersIn else {
            throw Refusal.shown("no application named \(clientID) signs users in here")
        }
        guard !repeated.contains("redirect_uri"), let redirectURI = values["redirect_uri"] else {
            throw Refusal.shown("the request has no redirect URI (redirect_uri), or has it twice")
        }
        guard client.signIn.redirectURIs.contains(where: { $0.accepts(redirectURI) }) else {
            throw Refusal.shown("\(clientID) did not register the redirect URI it asked for")
        }

        let state = values["state"]
        var mode = ResponseMode.query
        func refuse(_ error: String, _ description: String) -> Refusal {
            .redirected(error: error, description: description, redirectURI: redirectURI, state: state, mode: mode)
        }
        if let asked = values["response_mode"] {
            guard let known = ResponseMode(rawValue: asked) else {
                throw refuse("invalid_request", "response_mode must be query or form_post")
            }
            mode = known
        }
        if let name = repeated.sorted().first { throw refuse("invalid_request", "\(name) is sent more than once") }
        if (state?.utf8.count ?? 0) > maximumValueLength || (values["nonce"]?.utf8.count ?? 0) > maximumValueLength {
            throw refuse("invalid_request", "state and nonce must be at most \(maximumValueLength) bytes")
        }
        // OpenID Connect Core §6: request objects are not supported.
        if values["request"] != nil { throw refuse("request_not_supported", "request objects are not supported") }
        if values["request_uri"] != nil { throw refuse("request_uri_not_supported", "request_uri is not supported") }
        guard values["response_type"] == "code" else {
            throw refuse("unsupported_response_type", "response_type must be code (the authorization code flow)")
        }

        let scopes = (values["scope"] ?? "").split(separator: " ").map(String.init)
        guard !scopes.isEmpty else { throw refuse("invalid_scope", "scope is required, such as openid") }
        for scope in scopes where !client.signIn.scopes.contains(scope) {
            throw refuse("invalid_scope", "\(clientID) may not ask for the scope \(scope)")
        }

        // RFC 7636 §4.3, RFC 9700 §2.1.1: S256 only, and always from a public client.
        let challenge = values["code_challenge"]
        if let challenge {
            guard values["code_challenge_method"] == "S256" else {
                throw refuse("invalid_request", "code_challenge_method must be S256 (plain is not accepted)")
            }
            guard challenge.utf8.count == 43, Base64URL.decode(challenge)?.count == 32 else {
                throw refuse("invalid_request", "code_challenge must be the 43-character base64url SHA-256 of the verifier")
            }
        } else if values["code_challenge_method"] != nil {
            throw refuse("invalid_request", "code_challenge_method without a code_challenge")
        } else if client.signIn.isPublic {
            throw refuse("invalid_request", "a public client must send a PKCE code_challenge (S256)")
        }

        var prompt: Set<Prompt> = []
        for word in (values["prompt"] ?? "").split(separator: " ") {
            guard let known = Prompt(rawValue: String(word)) else {
                // select_account among them: one account per browser session here.
                if word == "select_account" { throw refuse("account_selection_required", "choosing among accounts is not supported") }
                throw refuse("invalid_request", "prompt \(word) is not one of none, login, consent")
            }
            prompt.insert(known)
        }
        if prompt.contains(.none) && prompt.count > 1 {
            throw refuse("invalid_request", "prompt=none cannot be combined with other values")
        }

        var maxAge: Int?
        if let text = values["max_age"] {
            guard let seconds = Int(text), seconds >= 0 else { throw refuse("invalid_request", "max_age must be a number of seconds") }
            maxAge = seconds
        }

        return AuthorizationRequest(
            client: client, redirectURI: redirectURI, scopes: scopes, state: state, nonce: values["nonce"], codeChallenge: challenge,
            prompt: prompt, maxAge: maxAge, loginHint: values["login_hint"],
            uiLocales: (values["ui_locales"] ?? "").split(separator: " ").map(String.init), responseMode: mode)
    }
}
