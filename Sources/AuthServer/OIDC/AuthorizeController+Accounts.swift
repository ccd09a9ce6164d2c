import AuthCore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import WebForms

// The sign-in page's links: the sign-up and forgot-password pages and their forms.
extension AuthorizeController {
    /// `GET` of the sign-up and forgot-password pages: the request checked, the form.
    func page(_ step: Step, request: Request) async throws -> Response {
        let flow: Flow
        switch try await check(Self.query(of: request), for: request) {
        case .success(let checked): flow = checked
        case .failure(let refused): return refused.response
        }
        let session = sessions.session(of: request) ?? BrowserSession.start(now: sessions.clock.now)
        return try accountPage(
            step, flow: flow, session: session, request: request, status: .ok, headers: try sessions.cookie(for: session))
    }

    func accountPage(
        _ step: Step, flow: Flow, session: BrowserSession, request: Request, status: HTTPResponse.Status, fields: [String: String] = [:],
        error: String? = nil, headers: HTTPFields = [:]
    ) throws -> Response {
        var values: [String: Any] = [
            "action": flow.action(step), "csrf": session.csrfToken, "sign_in_link": "/authorize?" + flow.query,
            "username": fields["username"] ?? "", "email": fields["email"] ?? "", "min_length": PasswordPolicy.minimumLength,
            "max_length": PasswordPolicy.maximumLength,
        ]
        values["error"] = error
        values["sent"] = fields["sent"] != nil
        return pages.page(
            Self.template(of: step), status: status, for: request, values: values,
            messageValues: [
                "client": flow.request.client.id, "min_length": String(PasswordPolicy.minimumLength), "email": fields["email"] ?? "",
            ], headers: headers, language: flow.language, formTargets: formTargets(flow))
    }

    /// The template of a page a sign-in page's link leads to.
    static func template(of step: Step) -> String {
        switch step {
        case .signUp: "sign-up"
        case .emailCode: "email-code"
        default: "forgot-password"
        }
    }

    /// The sign-up form's POST: `POST /users`'s rules and limits, then the new account signs
    /// in (`POST /login`'s) and the request goes on.
    func signUp(_ flow: Flow, form: FormRequestBody, session: BrowserSession, request: Request, origin: RequestOrigin) async throws
        -> Response
    {
        guard let accounts = signUp else { throw AuthError.notFound("sign-up is closed") }
        let (username, password, email) = (form["username"] ?? "", form["password"] ?? "", form["email"])
        let fields = ["username": username, "email": email ?? ""]
        do {
            let user = try await accounts.signUp(
                username: username, password: password, email: email, origin: origin, throttle: login.throttle)
            try await recovery?.requestEmailVerification(for: user, origin: origin)
            let grant = try await login.login(username: username, password: password, origin: origin)
            return try await finish(flow, grant: grant, methods: ["pwd"], request: request, session: nil)
        } catch let error as AuthError {
            let words = pages.catalogue.messages(
                in: flow.language, values: ["reason": error.description, "seconds": String(error.retryAfter ?? 60)])
            let message: String? =
                switch error.code {
                case .usernameTaken: words["error_username_taken"]
                case .emailTaken: words["error_email_taken"]
                case .tooManyAttempts: words["error_too_many"]
                case .serviceUnavailable: words["unavailable_message"]
                default: words["error_invalid"]
                }
            let status: HTTPResponse.Status =
                switch error.code {
                case .usernameTaken, .emailTaken: .conflict
                case .weakPassword: .unprocessableContent
                default: Self.status(of: error)
                }
            return try accountPage(.signUp, flow: flow, session: session, request: request, status: status, fields: fields, error: message)
        }
    }

    /// The forgot-password form's POST: `POST /password/reset`'s rules (the same answer whether
    /// or not the account exists or has an address; the message is sent after answering).
    func forgotPassword(
        _ flow: Flow, form: FormRequestBody, session: BrowserSession, request: Request, origin: RequestOrigin, logger: Logger
    ) async throws -> Response {
        guard let recovery else { throw AuthError.notFound("password resets are not offered") }
        do {
            let accepted = try await recovery.acceptPasswordReset(username: form["username"] ?? "", email: nil, origin: origin)
            AfterTheAnswer.run("password reset not issued", logger: logger) { try await recovery.issue(accepted) }
        } catch let error as AuthError {
            let words = pages.catalogue.messages(
                in: flow.language, values: ["reason": error.description, "seconds": String(error.retryAfter ?? 60)])
            let message = error.code == .tooManyAttempts ? words["error_too_many"] : words["error_invalid"]
            return try accountPage(
                .forgotPassword, flow: flow, session: session, request: request, status: Self.status(of: error),
                fields: ["username": form["username"] ?? ""], error: message)
        }
        return pages.page(
            "link-sent", status: .ok, for: request, values: ["sign_in_link": "/authorize?" + flow.query], language: flow.language)
    }
}
