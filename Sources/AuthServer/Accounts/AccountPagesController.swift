import AuthCore
import HTTPTypes
import Hummingbird

/// The pages an emailed link opens (``AuthCore/DeliveryLinks``): choosing a new password with
/// a reset token, and confirming an address with a verification or email-change token.
///
/// A link's `GET …?token=` moves the token into the browser's session and redirects to the
/// same page without it, so the token leaves the address bar before anything is shown. The
/// page itself only looks the token up; the form's POST acts (a link scanner that opens the
/// link confirms nothing), after the anti-forgery checks of ``BrowserSessions``, and redirects
/// back to the page, which then says it worked (post/redirect/get: reloading sends nothing
/// twice). The rules are ``AuthCore/AccountRecoveryService``'s, as for the JSON routes: the
/// same limits, the same errors, the same audit.
///
/// ```swift
/// router.addRoutes(AccountPagesController(recovery: recovery, sessions: browserSessions, pages: .builtIn, maxBodySize: 64 * 1024).routes)
/// ```
public struct AccountPagesController<Storage: AuthStorage>: Sendable {
    /// The recovery rules.
    public let recovery: AccountRecoveryService<Storage>
    /// Browser sessions and form checks.
    public let sessions: BrowserSessions
    /// Templates and words.
    public let pages: WebPages
    /// Largest accepted form, bytes.
    public let maxBodySize: Int

    /// Creates the controller.
    public init(recovery: AccountRecoveryService<Storage>, sessions: BrowserSessions, pages: WebPages, maxBodySize: Int) {
        self.recovery = recovery
        self.sessions = sessions
        self.pages = pages
        self.maxBodySize = maxBodySize
    }

    /// The routes of the pages.
    public var routes: RouteCollection<AuthRequestContext> {
        let routes = RouteCollection(context: AuthRequestContext.self)
        routes.get(RouterPath(AccountPages.passwordReset)) { request, _ in
            try await show(request, page: .passwordReset)
        }
        routes.post(RouterPath(AccountPages.passwordReset)) { request, context in
            try await submit(request, context: context, page: .passwordReset)
        }
        routes.get(RouterPath(AccountPages.verifyEmail)) { request, _ in
            try await show(request, page: .verifyEmail)
        }
        routes.post(RouterPath(AccountPages.verifyEmail)) { request, context in
            try await submit(request, context: context, page: .verifyEmail)
        }
        return routes
    }

    /// One of the two pages.
    enum Page: String {
        case passwordReset = "password-reset"
        case verifyEmail = "verify-email"

        var path: String { self == .passwordReset ? AccountPages.passwordReset : AccountPages.verifyEmail }
        var purposes: Set<AccountTokenPurpose> { self == .passwordReset ? [.passwordReset] : [.emailVerification, .emailChange] }
        /// The purpose a link's token is kept under (an email change's is looked up as either).
        var linkPurpose: AccountTokenPurpose { self == .passwordReset ? .passwordReset : .emailVerification }
        /// The catalogue's key of the page that says it worked.
        var doneMessage: String { self == .passwordReset ? "reset_done" : "verify_done" }
    }

    /// The link (`?token=`: kept in the session, then redirected to the page without it), the
    /// form, the page that says it worked, or the page that says the link no longer works.
    func show(_ request: Request, page: Page) async throws -> Response {
        if let moved = try sessions.movingLinkToken(of: request, purpose: page.linkPurpose, to: page.path) { return moved }
        let session = sessions.session(of: request) ?? BrowserSession.start(now: sessions.clock.now)
        if let completed = session.completed, completed.page == page.rawValue {
            return pages.message(page.doneMessage, status: .ok, for: request, messageValues: ["username": completed.username])
        }
        guard let token = session.pendingToken(for: page.purposes),
            let holder = try await recovery.holder(of: token, purposes: page.purposes)
        else {
            return pages.message("link_invalid", status: .gone, for: request)
        }
        return form(page, for: request, session: session, username: holder.username, status: .ok)
    }

    /// The form's POST: checked against forgery, then the token used.
    func submit(_ request: Request, context: AuthRequestContext, page: Page) async throws -> Response {
        let form = try await FormRequestBody.read(from: request, limit: maxBodySize)
        guard var session = sessions.session(of: request), sessions.acceptsForm(request, csrfToken: form["csrf"], session: session) else {
            return pages.message("forbidden", status: .forbidden, for: request)
        }
        guard let token = session.pendingToken(for: page.purposes) else {
            return pages.message("link_invalid", status: .gone, for: request)
        }
        let user: User
        do {
            switch page {
            case .passwordReset:
                guard let password = form["password"] else {
                    return try await retry(
                        page, request: request, session: session, token: token, error: "error_password_required", status: .badRequest)
                }
                user = try await recovery.resetPassword(token: token, newPassword: password, origin: context.origin(of: request))
            case .verifyEmail:
                user = try await recovery.verifyEmail(token: token, origin: context.origin(of: request))
            }
        } catch let error as AuthError {
            switch error.code {
            case .weakPassword:
                return try await retry(
                    page, request: request, session: session, token: token, error: "error_weak_password", reason: error.description,
                    status: .unprocessableContent)
            case .invalidRequest:
                return try await retry(
                    page, request: request, session: session, token: token, error: "error_weak_password", reason: error.description,
                    status: .badRequest)
            case .invalidToken:
                return pages.message("link_invalid", status: .gone, for: request)
            case .tooManyAttempts:
                return pages.message(
                    "too_many", status: .tooManyRequests, for: request, headers: error.retryAfter.map { [.retryAfter: String($0)] } ?? [:])
            default:
                return pages.message("unavailable", status: .serviceUnavailable, for: request)
            }
        }
        session.pending = nil
        session.completed = .init(page: page.rawValue, username: user.username)
        return PageResponse.seeOther(page.path, headers: try sessions.cookie(for: session))
    }

    /// The form again, with what was wrong.
    private func retry(
        _ page: Page, request: Request, session: BrowserSession, token: String, error key: String, reason: String = "",
        status: HTTPResponse.Status
    ) async throws -> Response {
        guard let holder = try await recovery.holder(of: token, purposes: page.purposes) else {
            return pages.message("link_invalid", status: .gone, for: request)
        }
        let message =
            pages.messages(for: request, values: ["reason": reason, "min_length": String(PasswordPolicy.minimumLength)])[key] ?? key
        return form(page, for: request, session: session, username: holder.username, status: status, error: message)
    }

    private func form(
        _ page: Page, for request: Request, session: BrowserSession, username: String, status: HTTPResponse.Status, error: String? = nil
    ) -> Response {
        var values: [String: Any] = [
            "action": page.path, "csrf": session.csrfToken, "username": username,
            "min_length": PasswordPolicy.minimumLength, "max_length": PasswordPolicy.maximumLength,
        ]
        values["error"] = error
        return pages.page(
            page.rawValue, status: status, for: request, values: values,
            messageValues: ["username": username, "min_length": String(PasswordPolicy.minimumLength)]
        )
    }
}

/// Where the account pages are, for the links that lead to them.
///
/// ```swift
/// DeliveryLinks(base: publicURL, paths: AccountPages.linkPaths)
/// ```
public enum AccountPages {
    /// Where a reset link leads.
    public static let passwordReset = "/account/password-reset"
    /// Where a verification or email-change link leads.
    public static let verifyEmail = "/account/verify-email"
    /// Where an email sign-in's link leads (``EmailSignInPagesController``).
    public static let emailSignIn = "/login/email/link"
    /// The page each token purpose's link leads to.
    public static let linkPaths: [AccountTokenPurpose: String] = [
        .passwordReset: passwordReset, .emailVerification: verifyEmail, .emailChange: verifyEmail,
        .emailSignIn: emailSignIn,
    ]
}
