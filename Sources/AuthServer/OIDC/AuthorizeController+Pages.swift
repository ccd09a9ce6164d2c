import AuthCore
import Foundation
import HTTPTypes
import Hummingbird
import WebForms

// The pages of a request: sign-in, second factor, consent; where their forms may lead;
// and the answers that go back to the client.
extension AuthorizeController {

    func signInPage(
        _ flow: Flow, session: BrowserSession, request: Request, status: HTTPResponse.Status, username: String? = nil, error: String? = nil,
        notice: String? = nil, headers: HTTPFields = [:]
    ) async throws -> Response {
        var values: [String: Any] = [
            "action": flow.action(.signIn), "csrf": session.csrfToken, "username": username ?? flow.request.loginHint ?? "",
        ]
        values["error"] = error
        values["passkey_action"] = passkeys != nil ? flow.action(.passkey) : nil
        values["reset_link"] = recovery != nil ? flow.action(.forgotPassword) : nil
        values["sign_up_link"] = signUp != nil ? flow.action(.signUp) : nil
        values["email_code_link"] = emailSignIn != nil ? flow.action(.emailCode) : nil
        values["notice"] = notice
        let providers = try await providerButtons(flow)
        values["providers"] = providers.buttons
        values["has_providers"] = !providers.buttons.isEmpty
        values["provider_action"] = flow.action(.provider)
        return pages.page(
            "sign-in", status: status, for: request, values: values, messageValues: ["client": flow.request.client.id], headers: headers,
            language: flow.language, formTargets: formTargets(flow) + providers.origins)
    }

    func secondFactorPage(
        _ flow: Flow, session: BrowserSession, username: String, request: Request, status: HTTPResponse.Status, error: String? = nil,
        headers: HTTPFields = [:]
    ) throws -> Response {
        var values: [String: Any] = ["action": flow.action(.secondFactor), "csrf": session.csrfToken]
        values["error"] = error
        return pages.page(
            "second-factor", status: status, for: request, values: values, messageValues: ["username": username], headers: headers,
            language: flow.language, formTargets: formTargets(flow))
    }

    func consentPage(_ flow: Flow, session: BrowserSession, signIn: BrowserSignIn, request: Request, headers: HTTPFields) async throws
        -> Response
    {
        let words = pages.catalogue.messages(in: flow.language)
        let scopes = flow.request.scopes.map { ["name": $0, "text": words["scope_\($0)"] ?? $0] }
        let username = try await provider.sessions.storage.users.user(withID: signIn.userID)?.username ?? ""
        return pages.page(
            "consent", status: .ok, for: request,
            values: ["action": flow.action(.consent), "csrf": session.csrfToken, "scopes": scopes],
            messageValues: ["client": flow.request.client.id, "username": username], headers: headers, language: flow.language,
            formTargets: formTargets(flow))
    }

    /// Where the pages of `flow` may send the browser after a form: authd, and the client's
    /// redirect URI (its origin, or its private-use scheme).
    func formTargets(_ flow: Flow) -> [String] {
        Self.formTarget(of: flow.request.redirectURI).map { [$0] } ?? []
    }

    static func formTarget(of redirectURI: String) -> String? {
        guard let components = URLComponents(string: redirectURI), let scheme = components.scheme?.lowercased() else { return nil }
        guard let host = components.host, !host.isEmpty, scheme == "http" || scheme == "https" else { return scheme + ":" }
        // A loopback redirect URI's port may be any (RFC 8252 §7.3).
        let loopback = RedirectURI.isLoopbackIP(host)
        return "\(scheme)://\(host)" + (loopback ? ":*" : components.port.map { ":\($0)" } ?? "")
    }

    /// The answer to the client: a redirect (`query`), or the page whose form the browser
    /// posts there (`form_post`).
    func respond(_ answer: AuthorizationResponse, request: Request, language: String, headers: HTTPFields = [:]) -> Response {
        switch answer.mode {
        case .query:
            return PageResponse.seeOther(answer.location, headers: headers)
        case .formPost:
            return pages.page(
                "form-post", status: .ok, for: request,
                values: ["action": answer.redirectURI, "fields": answer.parameters.map { ["name": $0.name, "value": $0.value] }],
                headers: headers, language: language, formTargets: Self.formTarget(of: answer.redirectURI).map { [$0] } ?? [])
        }
    }

    func redirect(_ flow: Flow, error: String, _ description: String, request: Request) -> Response {
        let refusal = AuthorizationRequest.Refusal.redirected(
            error: error, description: description, redirectURI: flow.request.redirectURI, state: flow.request.state,
            mode: flow.request.responseMode)
        guard let answer = AuthorizationResponse.error(refusal, issuer: issuer) else { preconditionFailure("a redirected refusal") }
        return respond(answer, request: request, language: flow.language)
    }

    /// The page of a posted form that does not read, or holds what no page of authd's sends.
    func invalidForm(_ request: Request, language: String? = nil) -> Response {
        pages.message("authorize_error", status: .badRequest, for: request, language: language, detail: "the form is not valid")
    }

    func message(for error: AuthError, flow: Flow) -> String {
        let words = pages.catalogue.messages(in: flow.language, values: ["seconds": String(error.retryAfter ?? 60)])
        switch error.code {
        case .accountDisabled: return words["error_disabled"] ?? ""
        case .tooManyAttempts: return words["error_too_many"] ?? ""
        case .serviceUnavailable: return words["unavailable_message"] ?? ""
        default: return words["error_credentials"] ?? ""
        }
    }

    static func status(of error: AuthError) -> HTTPResponse.Status {
        switch error.code {
        case .tooManyAttempts: .tooManyRequests
        case .serviceUnavailable: .serviceUnavailable
        case .accountDisabled: .forbidden
        case .invalidRequest: .badRequest
        default: .unauthorized
        }
    }
}
