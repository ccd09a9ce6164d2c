import AuthCore
import Foundation
import HTTPTypes
import Hummingbird
import Logging

// The sign-in page's "email me a sign-in code": `POST /login/email` and
// `POST /login/email/verify`'s rules on a page of the request.
extension AuthorizeController {
    /// The email-code page's POST: with an address only, the code is asked for (the same
    /// answer for any address, the message made after answering) and the page asks for it;
    /// with the code too, the browser signs in (`otp`), and the request goes on, through the
    /// second step when the account has one.
    func emailCode(
        _ flow: Flow, form: FormRequestBody, session: BrowserSession, request: Request, origin: RequestOrigin, logger: Logger
    ) async throws -> Response {
        guard let emailSignIn else { throw AuthError.notFound("email sign-in codes are not offered") }
        let email = form["email"] ?? ""
        let words = { (error: AuthError) in
            self.pages.catalogue.messages(
                in: flow.language, values: ["reason": error.description, "seconds": String(error.retryAfter ?? 60)])
        }
        guard let code = form["code"] else {
            do {
                let accepted = try await emailSignIn.accept(email: email, origin: origin)
                AfterTheAnswer.run("email sign-in code not issued", logger: logger) { try await emailSignIn.issue(accepted) }
            } catch let error as AuthError {
                return try accountPage(
                    .emailCode, flow: flow, session: session, request: request, status: Self.status(of: error), fields: ["email": email],
                    error: error.code == .tooManyAttempts ? words(error)["error_too_many"] : words(error)["error_invalid"])
            }
            return try accountPage(
                .emailCode, flow: flow, session: session, request: request, status: .ok, fields: ["email": email, "sent": ""])
        }
        do {
            let grant = try await emailSignIn.signIn(email: email, code: code, origin: origin)
            return try await finish(flow, grant: grant, methods: EmailSignIn<Storage>.methods, request: request, session: session)
        } catch let error as AuthError {
            switch error.code {
            case .mfaRequired:
                var waiting = session
                waiting.secondFactorToken = error.mfaToken
                waiting.firstMethods = EmailSignIn<Storage>.methods
                return try secondFactorPage(
                    flow, session: waiting, username: "", request: request, status: .ok, headers: try sessions.cookie(for: waiting))
            case .invalidCredentials, .invalidRequest:
                return try accountPage(
                    .emailCode, flow: flow, session: session, request: request, status: .unauthorized,
                    fields: ["email": email, "sent": ""],
                    error: words(error)["error_code"])
            default:
                return try accountPage(
                    .emailCode, flow: flow, session: session, request: request, status: Self.status(of: error),
                    fields: ["email": email, "sent": ""], error: message(for: error, flow: flow))
            }
        }
    }
}
