import AuthCore
import HTTPTypes
import Hummingbird

/// The page an email sign-in's link opens (`/login/email/link`): it signs this browser in to
/// the account, as the hosted sign-in page does, so that the application's next
/// `/authorize` goes on without a password.
///
/// As the account pages do (``AccountPagesController``), `GET …?token=` moves the token into
/// the browser's session and redirects to the page without it; the page only looks the token
/// up, and its form's POST signs in (a link scanner that opens the link signs nothing in).
/// An account with a second factor is asked for it on the same page. The rules are
/// ``AuthCore/EmailSignIn``'s, as for `POST /login/email/verify`.
///
/// ```swift
/// router.addRoutes(EmailSignInPagesController(email: email, factors: factors, sessions: browserSessions, pages: .builtIn,
///                                             maxBodySize: 64 * 1024).routes)
/// ```
public struct EmailSignInPagesController<Storage: AuthStorage>: Sendable {
    /// The email sign-in rules.
    public let email: EmailSignIn<Storage>
    /// The second step, for an account that has one.
    public let factors: SecondFactorService<Storage>
    /// Browser sessions and form checks.
    public let sessions: BrowserSessions
    /// Templates and words.
    public let pages: WebPages
    /// Largest accepted form, bytes.
    public let maxBodySize: Int

    /// Where the link leads.
    public static var path: String { AccountPages.emailSignIn }
    private static var page: String { "email-sign-in" }

    /// Creates the controller.
    public init(
        email: EmailSignIn<Storage>, factors: SecondFactorService<Storage>, sessions: BrowserSessions, pages: WebPages, maxBodySize: Int
    ) {
        self.email = email
        self.factors = factors
        self.sessions = sessions
        self.pages = pages
        self.maxBodySize = maxBodySize
    }

    /// The routes of the page.
    public var routes: RouteCollection<AuthRequestContext> {
        let routes = RouteCollection(context: AuthRequestContext.self)
        routes.get(RouterPath(Self.path)) { request, _ in try await show(request) }
        routes.post(RouterPath(Self.path)) { request, context in try await submit(request, context: context) }
        return routes
    }

    /// The link (kept in the session, then redirected to the page without it), the button,
    /// the second step, the page that says it worked, or the page that says the link no
    /// longer works.
    func show(_ request: Request) async throws -> Response {
        if let moved = try sessions.movingLinkToken(of: request, purpose: .emailSignIn, to: Self.path) { return moved }
        let session = sessions.session(of: request) ?? BrowserSession.start(now: sessions.clock.now)
        if let completed = session.completed, completed.page == Self.page {
            return pages.message("email_signed_in", status: .ok, for: request, messageValues: ["username": completed.username])
        }
        if session.secondFactorToken != nil {
            return secondFactorPage(request, session: session, status: .ok)
        }
        guard let token = session.pendingToken(for: [.emailSignIn]), let holder = try await email.holder(of: token) else {
            return pages.message("link_invalid", status: .gone, for: request)
        }
        return pages.page(
            Self.page, status: .ok, for: request, values: ["action": Self.path, "csrf": session.csrfToken],
            messageValues: ["username": holder.username])
    }

    /// The form's POST: checked against forgery, then the token (or the second step's code) used.
    func submit(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let form = try await FormRequestBody.read(from: request, limit: maxBodySize)
        guard var session = sessions.session(of: request), sessions.acceptsForm(request, csrfToken: form["csrf"], session: session) else {
            return pages.message("forbidden", status: .forbidden, for: request)
        }
        let origin = context.origin(of: request)
        var methods = EmailSignIn<Storage>.methods
        let grant: TokenGrant
        do {
            if let mfaToken = session.secondFactorToken {
                let proof: SecondFactorProof
                if let code = form["code"] {
                    proof = .code(code)
                } else if let recovery = form["recovery_code"] {
                    proof = .recoveryCode(recovery)
                } else {
                    return secondFactorPage(request, session: session, status: .badRequest, error: true)
                }
                methods.append("otp")
                grant = try await factors.completeLogin(mfaToken: mfaToken, proof: proof, origin: origin)
            } else {
                guard let token = session.pendingToken(for: [.emailSignIn]) else {
                    return pages.message("link_invalid", status: .gone, for: request)
                }
                grant = try await email.signIn(token: token, origin: origin)
            }
        } catch let error as AuthError {
            switch error.code {
            case .mfaRequired:
                session.pending = nil
                session.secondFactorToken = error.mfaToken
                return PageResponse.seeOther(Self.path, headers: try sessions.cookie(for: session))
            case .invalidCredentials, .invalidRequest:
                if session.secondFactorToken != nil {
                    return secondFactorPage(request, session: session, status: .unauthorized, error: true)
                }
                return pages.message("link_invalid", status: .gone, for: request)
            case .invalidToken:
                // The link, or the second step's token (expired, or too many wrong codes), ended.
                return pages.message("link_invalid", status: .gone, for: request)
            case .accountDisabled:
                return pages.message("disabled", status: .forbidden, for: request)
            case .tooManyAttempts:
                return pages.message(
                    "too_many", status: .tooManyRequests, for: request, headers: error.retryAfter.map { [.retryAfter: String($0)] } ?? [:])
            default:
                return pages.message("unavailable", status: .serviceUnavailable, for: request)
            }
        }
        guard let sessionID = grant.sessionID, let userID = grant.userID,
            let user = try await email.login.storage.users.user(withID: userID)
        else {
            return pages.message("link_invalid", status: .gone, for: request)
        }
        var signedIn = session.signedIn(
            as: BrowserSignIn(userID: userID, sessionID: sessionID, authTime: sessions.clock.now, methods: methods))
        signedIn.completed = .init(page: Self.page, username: user.username)
        return PageResponse.seeOther(Self.path, headers: try sessions.cookie(for: signedIn))
    }

    private func secondFactorPage(_ request: Request, session: BrowserSession, status: HTTPResponse.Status, error: Bool = false) -> Response
    {
        var values: [String: Any] = ["action": Self.path, "csrf": session.csrfToken]
        values["error"] = error ? pages.messages(for: request)["error_code"] : nil
        return pages.page("second-factor", status: status, for: request, values: values, messageValues: ["username": ""])
    }
}
