import AuthCore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import WebForms

/// The authorization endpoint and its hosted pages (OpenID Connect Core §3.1.2, RFC 6749
/// §4.1, RFC 9207): `GET`/`POST /authorize` checks the request, then signs the browser in
/// (the password page, then the second-factor page when the account has one), asks a
/// third-party client's consent, and sends the browser back to the client's redirect URI
/// with a code, or an error, with `state` and `iss`.
///
/// A request whose client or redirect URI is not known good is refused on authd's own page,
/// never redirected (RFC 6749 §4.1.2.1). The pages' forms post to `/authorize/…` with the
/// request's parameters in their query, so every step checks the request again; each form
/// carries the browser session's anti-forgery token (``BrowserSessions``). A signed-in
/// browser (its sealed cookie, checked against storage at each use) gets its code without a
/// form unless `prompt=login` or `max_age` ask for a new sign-in; `prompt=none` never shows a
/// page. The password and second steps are ``AuthCore/LoginService``'s and
/// ``AuthCore/SecondFactorService``'s: the same throttles and audit events as `POST /login`.
///
/// ```swift
/// router.addRoutes(AuthorizeController(provider: provider, login: login, factors: factors, sessions: browserSessions,
///                                      pages: .builtIn, issuer: "https://auth.example.com", maxBodySize: 64 * 1024).routes)
/// ```
public struct AuthorizeController<Storage: AuthStorage>: Sendable {
    public let provider: OpenIDProvider<Storage>
    public let login: LoginService<Storage>
    public let factors: SecondFactorService<Storage>
    /// Passkeys, when authd is a WebAuthn relying party (`serve --rp-id`): the sign-in page
    /// offers them.
    public let passkeys: PasskeyService<Storage>?
    /// Sign-up from the sign-in page, when it is open (`serve --signup open`).
    public let signUp: AccountService<Storage>?
    /// The "forgot your password?" page, when authd delivers messages (`--delivery-url`).
    public let recovery: AccountRecoveryService<Storage>?
    public let sessions: BrowserSessions
    public let pages: WebPages
    /// The `iss` of the answers (RFC 9207): the issuer of authd's tokens.
    public let issuer: String
    /// Largest accepted form, bytes.
    public let maxBodySize: Int

    public init(
        provider: OpenIDProvider<Storage>, login: LoginService<Storage>, factors: SecondFactorService<Storage>,
        passkeys: PasskeyService<Storage>? = nil, signUp: AccountService<Storage>? = nil, recovery: AccountRecoveryService<Storage>? = nil,
        sessions: BrowserSessions, pages: WebPages, issuer: String, maxBodySize: Int
    ) {
        self.signUp = signUp
        self.recovery = recovery
        self.provider = provider
        self.login = login
        self.factors = factors
        self.passkeys = passkeys
        self.sessions = sessions
        self.pages = pages
        self.issuer = issuer
        self.maxBodySize = maxBodySize
    }

    /// Where the pages' forms post.
    enum Step: String {
        case signIn = "/authorize/sign-in"
        case secondFactor = "/authorize/second-factor"
        case consent = "/authorize/consent"
        case passkey = "/authorize/passkey"
        case resume = "/authorize/resume"
        case signUp = "/authorize/sign-up"
        case forgotPassword = "/authorize/forgot-password"
    }

    /// How recent a sign-in `/authorize/resume` takes as this request's own: the page's script
    /// goes there at once after its passkey sign-in.
    static var resumeWindow: TimeInterval { 120 }

    public var routes: RouteCollection<AuthRequestContext> {
        let routes = RouteCollection(context: AuthRequestContext.self)
        routes.get("/authorize") { request, context in
            try await authorize(request, context: context, parameters: Self.query(of: request))
        }
        routes.post("/authorize") { request, context in
            guard FormEncoding.isForm(contentType: request.headers[.contentType]) else { throw HTTPRequestError.notAForm }
            let body = Data(buffer: try await JSONRequestBody.collect(request, limit: maxBodySize))
            guard let parameters = FormEncoding.decode(body) else {
                return pages.message("authorize_error", status: .badRequest, for: request, detail: "the form is not valid")
            }
            return try await authorize(request, context: context, parameters: parameters)
        }
        routes.post(RouterPath(Step.signIn.rawValue)) { request, context in
            try await step(.signIn, request: request, context: context)
        }
        routes.post(RouterPath(Step.secondFactor.rawValue)) { request, context in
            try await step(.secondFactor, request: request, context: context)
        }
        routes.post(RouterPath(Step.consent.rawValue)) { request, context in
            try await step(.consent, request: request, context: context)
        }
        routes.post(RouterPath(Step.passkey.rawValue)) { request, context in
            try await passkey(request, context: context)
        }
        routes.get(RouterPath(Step.resume.rawValue)) { request, _ in
            try await resume(request)
        }
        if signUp != nil {
            routes.get(RouterPath(Step.signUp.rawValue)) { request, _ in try await page(.signUp, request: request) }
            routes.post(RouterPath(Step.signUp.rawValue)) { request, context in try await step(.signUp, request: request, context: context)
            }
        }
        if recovery != nil {
            routes.get(RouterPath(Step.forgotPassword.rawValue)) { request, _ in try await page(.forgotPassword, request: request) }
            routes.post(RouterPath(Step.forgotPassword.rawValue)) { request, context in
                try await step(.forgotPassword, request: request, context: context)
            }
        }
        return routes
    }

    /// A request being answered: its parameters as sent (carried by the pages' forms), what
    /// they say, and the language of its pages.
    struct Flow {
        let parameters: [(name: String, value: String)]
        let request: AuthorizationRequest
        let language: String

        /// The query of the pages' form actions: the request again.
        var query: String { FormEncoding.encode(parameters) }
        func action(_ step: Step) -> String { step.rawValue + "?" + query }
    }

    static func query(of request: Request) -> [(name: String, value: String)] {
        request.uri.query.flatMap { FormEncoding.decode(Data($0.utf8)) } ?? []
    }

    /// The request checked: a ``Flow``, or the answer that refuses it.
    func check(_ parameters: [(name: String, value: String)], for request: Request) async throws -> Result<Flow, Refused> {
        do {
            let parsed = try await AuthorizationRequest.parse(parameters) { try await provider.client(id: $0) }
            return .success(
                Flow(parameters: parameters, request: parsed, language: pages.language(uiLocales: parsed.uiLocales, request: request)))
        } catch let refusal as AuthorizationRequest.Refusal {
            if let answer = AuthorizationResponse.error(refusal, issuer: issuer) {
                return .failure(Refused(response: respond(answer, request: request, language: pages.language(of: request))))
            }
            guard case .shown(let reason) = refusal else { preconditionFailure("a refusal is shown or redirected") }
            return .failure(Refused(response: pages.message("authorize_error", status: .badRequest, for: request, detail: reason)))
        }
    }

    struct Refused: Error {
        let response: Response
    }

    /// `GET`/`POST /authorize`.
    func authorize(_ request: Request, context: AuthRequestContext, parameters: [(name: String, value: String)]) async throws
        -> Response
    {
        let flow: Flow
        switch try await check(parameters, for: request) {
        case .success(let checked): flow = checked
        case .failure(let refused): return refused.response
        }
        let session = sessions.session(of: request)
        let now = sessions.clock.now
        if let signIn = session?.signIn, !flow.request.prompt.contains(.login), signIn.satisfies(maxAge: flow.request.maxAge, now: now),
            try await provider.isLive(signIn), let session
        {
            return try await signedIn(flow, session: session, request: request)
        }
        if flow.request.prompt.contains(.none) {
            return redirect(flow, error: "login_required", "the browser is not signed in", request: request)
        }
        var fresh = session ?? BrowserSession.start(now: now)
        fresh.signIn = nil
        fresh.secondFactorToken = nil
        return try signInPage(flow, session: fresh, request: request, status: .ok, headers: try sessions.cookie(for: fresh))
    }

    /// The browser is signed in (again, or just now): the consent page when it is needed,
    /// else the code.
    func signedIn(_ flow: Flow, session: BrowserSession, request: Request, headers: HTTPFields = [:]) async throws -> Response {
        guard let signIn = session.signIn else { preconditionFailure("a signed-in session") }
        if try await provider.needsConsent(flow.request, userID: signIn.userID) {
            if flow.request.prompt.contains(.none) {
                return redirect(flow, error: "consent_required", "the user has not allowed this client yet", request: request)
            }
            return try await consentPage(flow, session: session, signIn: signIn, request: request, headers: headers)
        }
        let code = try await provider.issueCode(for: flow.request, signIn: signIn)
        return respond(
            AuthorizationResponse.code(code, for: flow.request, issuer: issuer), request: request, language: flow.language, headers: headers
        )
    }

    /// A form of the pages, posted.
    func step(_ step: Step, request: Request, context: AuthRequestContext) async throws -> Response {
        let form = try await FormRequestBody.read(from: request, limit: maxBodySize)
        let flow: Flow
        switch try await check(Self.query(of: request), for: request) {
        case .success(let checked): flow = checked
        case .failure(let refused): return refused.response
        }
        guard let session = sessions.session(of: request), sessions.acceptsForm(request, csrfToken: form["csrf"], session: session) else {
            return pages.message("session_forbidden", status: .forbidden, for: request, language: flow.language)
        }
        let origin = context.origin(of: request)
        switch step {
        case .signIn:
            return try await signIn(flow, form: form, session: session, request: request, origin: origin)
        case .secondFactor:
            return try await secondFactor(flow, form: form, session: session, request: request, origin: origin)
        case .passkey, .resume:
            preconditionFailure("not a form")
        case .signUp:
            return try await signUp(flow, form: form, session: session, request: request, origin: origin)
        case .forgotPassword:
            return try await forgotPassword(flow, form: form, session: session, request: request, origin: origin, logger: context.logger)
        case .consent:
            guard let signIn = session.signIn, try await provider.isLive(signIn) else {
                return try signInPage(flow, session: session, request: request, status: .ok)
            }
            guard form["decision"] == "allow" else {
                return redirect(flow, error: "access_denied", "the user did not allow it", request: request)
            }
            try await provider.recordConsent(flow.request, userID: signIn.userID)
            let code = try await provider.issueCode(for: flow.request, signIn: signIn)
            return respond(AuthorizationResponse.code(code, for: flow.request, issuer: issuer), request: request, language: flow.language)
        }
    }

    /// The password form's POST: `POST /login`'s rules, then the second step or the answer.
    func signIn(_ flow: Flow, form: FormRequestBody, session: BrowserSession, request: Request, origin: RequestOrigin) async throws
        -> Response
    {
        let username = form["username"] ?? ""
        do {
            let grant = try await login.login(username: username, password: form["password"] ?? "", origin: origin)
            return try await finish(flow, grant: grant, methods: ["pwd"], request: request)
        } catch let error as AuthError {
            if error.code == .mfaRequired, let token = error.mfaToken {
                var waiting = session
                waiting.secondFactorToken = token
                return try secondFactorPage(
                    flow, session: waiting, username: username, request: request, status: .ok, headers: try sessions.cookie(for: waiting))
            }
            return try signInPage(
                flow, session: session, request: request, status: Self.status(of: error), username: username,
                error: message(for: error, flow: flow))
        }
    }

    /// The second step's POST: a code of the authenticator app, or a recovery code.
    func secondFactor(_ flow: Flow, form: FormRequestBody, session: BrowserSession, request: Request, origin: RequestOrigin)
        async throws -> Response
    {
        guard let token = session.secondFactorToken else {
            return try signInPage(flow, session: session, request: request, status: .ok)
        }
        let proof: SecondFactorProof
        let method: String
        if let code = form["code"] {
            (proof, method) = (.code(code), "otp")
        } else if let recovery = form["recovery_code"] {
            // RFC 8176 has no method for a recovery code; it is a one-time password too.
            (proof, method) = (.recoveryCode(recovery), "otp")
        } else {
            return try secondFactorPage(
                flow, session: session, username: "", request: request, status: .badRequest,
                error: pages.catalogue.messages(in: flow.language)["error_code"])
        }
        do {
            let grant = try await factors.completeLogin(mfaToken: token, proof: proof, origin: origin)
            return try await finish(flow, grant: grant, methods: ["pwd", method], request: request)
        } catch let error as AuthError where error.code == .invalidCredentials || error.code == .invalidRequest {
            return try secondFactorPage(
                flow, session: session, username: "", request: request, status: .unauthorized,
                error: pages.catalogue.messages(in: flow.language)["error_code"])
        } catch let error as AuthError {
            // The step's token ended (expired, or too many wrong codes): start again.
            var again = session
            again.secondFactorToken = nil
            return try signInPage(
                flow, session: again, request: request, status: Self.status(of: error), error: message(for: error, flow: flow),
                headers: try sessions.cookie(for: again))
        }
    }

    /// A sign-in that worked: the browser session becomes a signed-in one (new id and
    /// anti-forgery token), and the request goes on without asking again.
    func finish(_ flow: Flow, grant: TokenGrant, methods: [String], request: Request) async throws -> Response {
        guard let sessionID = grant.sessionID, let userID = grant.userID else {
            preconditionFailure("a login's grant names its session and user")
        }
        let signIn = BrowserSignIn(userID: userID, sessionID: sessionID, authTime: sessions.clock.now, methods: methods)
        let session = BrowserSession.start(now: signIn.authTime).signedIn(as: signIn)
        return try await signedIn(flow, session: session, request: request, headers: try sessions.cookie(for: session))
    }

    /// The sign-in page's passkey (its script posts the assertion with the page's
    /// anti-forgery token): `POST /webauthn/login`'s rules; the answer is JSON, `{"location"}`
    /// where the script sends the browser on (`/authorize/resume`), or the one error shape.
    func passkey(_ request: Request, context: AuthRequestContext) async throws -> Response {
        guard let passkeys else { throw AuthError.notFound("passkeys are not offered here") }
        let body = try await JSONRequestBody.decode(PagePasskeyRequest.self, from: request, limit: maxBodySize)
        guard case .success(let flow) = try await check(Self.query(of: request), for: request) else {
            throw AuthError.invalidRequest("the authorization request is not valid")
        }
        guard let session = sessions.session(of: request), sessions.acceptsForm(request, csrfToken: body.csrf, session: session) else {
            throw AuthError.invalidRequest("the page's anti-forgery token is missing or stale: reload the page")
        }
        let grant = try await passkeys.logIn(body.credential, origin: context.origin(of: request))
        guard let sessionID = grant.sessionID, let userID = grant.userID else {
            preconditionFailure("a login's grant names its session and user")
        }
        let signIn = BrowserSignIn(userID: userID, sessionID: sessionID, authTime: sessions.clock.now, methods: grant.methods ?? ["hwk"])
        let signedIn = BrowserSession.start(now: signIn.authTime).signedIn(as: signIn)
        return JSONResponse.make(status: .ok, body: ["location": flow.action(.resume)], headers: try sessions.cookie(for: signedIn))
    }

    /// Where the page's script goes after its passkey sign-in: the request goes on with that
    /// sign-in, taken as the request's own (so `prompt=login` and `max_age` hold) when it is
    /// as recent as ``resumeWindow``; else the request starts again.
    func resume(_ request: Request) async throws -> Response {
        let flow: Flow
        switch try await check(Self.query(of: request), for: request) {
        case .success(let checked): flow = checked
        case .failure(let refused): return refused.response
        }
        guard let session = sessions.session(of: request), let signIn = session.signIn,
            sessions.clock.now.timeIntervalSince(signIn.authTime) <= Self.resumeWindow, try await provider.isLive(signIn)
        else {
            return PageResponse.seeOther("/authorize?" + flow.query)
        }
        return try await signedIn(flow, session: session, request: request)
    }

    // MARK: Pages

    func signInPage(
        _ flow: Flow, session: BrowserSession, request: Request, status: HTTPResponse.Status, username: String? = nil, error: String? = nil,
        headers: HTTPFields = [:]
    ) throws -> Response {
        var values: [String: Any] = [
            "action": flow.action(.signIn), "csrf": session.csrfToken, "username": username ?? flow.request.loginHint ?? "",
        ]
        values["error"] = error
        values["passkey_action"] = passkeys != nil ? flow.action(.passkey) : nil
        values["reset_link"] = recovery != nil ? flow.action(.forgotPassword) : nil
        values["sign_up_link"] = signUp != nil ? flow.action(.signUp) : nil
        return pages.page(
            "sign-in", status: status, for: request, values: values, messageValues: ["client": flow.request.client.id], headers: headers,
            language: flow.language, formTargets: formTargets(flow))
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
        return pages.page(
            step == .signUp ? "sign-up" : "forgot-password", status: status, for: request, values: values,
            messageValues: ["client": flow.request.client.id, "min_length": String(PasswordPolicy.minimumLength)], headers: headers,
            language: flow.language, formTargets: formTargets(flow))
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
            return try await finish(flow, grant: grant, methods: ["pwd"], request: request)
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
            Task {
                do {
                    try await recovery.issue(accepted)
                } catch {
                    logger.warning("password reset not issued", metadata: ["reason": "\(type(of: error))"])
                }
            }
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

    // MARK: Answers

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
