import AuthCore
import Foundation
import HTTPTypes
import Hummingbird
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
    /// Sign-in with upstream providers: a button per provider on the sign-in page, authd
    /// their relying party, and the link of a provider's identity to an existing account.
    public let federation: FederatedLogin<Storage>?
    /// Sign-in by an emailed code from the sign-in page, when authd delivers messages.
    public let emailSignIn: EmailSignIn<Storage>?
    public let sessions: BrowserSessions
    public let pages: WebPages
    /// The `iss` of the answers (RFC 9207): the issuer of authd's tokens.
    public let issuer: String
    /// The base URL browsers reach authd at (`serve --public-url`), when one is given.
    public let publicURL: String?
    /// Largest accepted form, bytes.
    public let maxBodySize: Int

    public init(
        provider: OpenIDProvider<Storage>, login: LoginService<Storage>, factors: SecondFactorService<Storage>,
        passkeys: PasskeyService<Storage>? = nil, signUp: AccountService<Storage>? = nil, recovery: AccountRecoveryService<Storage>? = nil,
        federation: FederatedLogin<Storage>? = nil, emailSignIn: EmailSignIn<Storage>? = nil, sessions: BrowserSessions, pages: WebPages,
        issuer: String, publicURL: String? = nil, maxBodySize: Int
    ) {
        self.publicURL = publicURL
        self.emailSignIn = emailSignIn
        self.signUp = signUp
        self.federation = federation
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
        case provider = "/authorize/provider"
        case link = "/authorize/link"
        case emailCode = "/authorize/email-code"
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
                return invalidForm(request)
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
        if federation != nil {
            routes.post(RouterPath(Step.provider.rawValue)) { request, context in
                try await step(.provider, request: request, context: context)
            }
            routes.post(RouterPath(Step.link.rawValue)) { request, context in try await step(.link, request: request, context: context) }
            routes.get(RouterPath(Self.callbackPath)) { request, context in try await callback(request, context: context) }
            routes.post(RouterPath(Self.callbackPath)) { request, context in try await callback(request, context: context) }
        }
        if emailSignIn != nil {
            routes.get(RouterPath(Step.emailCode.rawValue)) { request, _ in try await page(.emailCode, request: request) }
            routes.post(RouterPath(Step.emailCode.rawValue)) { request, context in
                try await step(.emailCode, request: request, context: context)
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
        fresh.linking = nil
        return try await signInPage(flow, session: fresh, request: request, status: .ok, headers: try sessions.cookie(for: fresh))
    }

    /// The browser is signed in (again, or just now): the consent page when it is needed,
    /// else the code.
    func signedIn(_ flow: Flow, session: BrowserSession, request: Request, headers: HTTPFields = [:]) async throws -> Response {
        guard let signIn = session.signIn else { preconditionFailure("a signed-in session") }
        if let linking = session.linking {
            return try await linkPage(flow, session: session, linking: linking, signIn: signIn, request: request, headers: headers)
        }
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
        let form: FormRequestBody
        do {
            form = try await FormRequestBody.read(from: request, limit: maxBodySize)
        } catch let error as AuthError where error.code == .invalidRequest {
            // A form that does not read (a field sent twice, bad encoding) gets a page, as a browser is shown.
            return invalidForm(request)
        }
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
        case .provider:
            return try await startProviderSignIn(flow, form: form, session: session, request: request)
        case .link:
            return try await confirmLink(flow, form: form, session: session, request: request, origin: origin)
        case .emailCode:
            return try await emailCode(flow, form: form, session: session, request: request, origin: origin, logger: context.logger)
        case .signUp:
            return try await signUp(flow, form: form, session: session, request: request, origin: origin)
        case .forgotPassword:
            return try await forgotPassword(flow, form: form, session: session, request: request, origin: origin, logger: context.logger)
        case .consent:
            // Only the page's two buttons post here: anything else is a broken form, not a refusal.
            guard let decision = form["decision"], decision == "allow" || decision == "deny" else {
                return invalidForm(request, language: flow.language)
            }
            guard let signIn = session.signIn, try await provider.isLive(signIn) else {
                return try await signInPage(flow, session: session, request: request, status: .ok)
            }
            guard decision == "allow" else {
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
            return try await finish(flow, grant: grant, methods: ["pwd"], request: request, session: session)
        } catch let error as AuthError {
            if error.code == .mfaRequired, let token = error.mfaToken {
                var waiting = session
                waiting.secondFactorToken = token
                waiting.firstMethods = nil
                return try secondFactorPage(
                    flow, session: waiting, username: username, request: request, status: .ok, headers: try sessions.cookie(for: waiting))
            }
            return try await signInPage(
                flow, session: session, request: request, status: Self.status(of: error), username: username,
                error: message(for: error, flow: flow))
        }
    }

    /// The second step's POST: a code of the authenticator app, or a recovery code.
    func secondFactor(_ flow: Flow, form: FormRequestBody, session: BrowserSession, request: Request, origin: RequestOrigin)
        async throws -> Response
    {
        guard let token = session.secondFactorToken else {
            return try await signInPage(flow, session: session, request: request, status: .ok)
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
            // RFC 8176 names a method once (an emailed code and an app's code are both `otp`).
            let first = session.firstMethods ?? ["pwd"]
            return try await finish(
                flow, grant: grant, methods: first + (first.contains(method) ? [] : [method]), request: request, session: session)
        } catch let error as AuthError where error.code == .invalidCredentials || error.code == .invalidRequest {
            return try secondFactorPage(
                flow, session: session, username: "", request: request, status: .unauthorized,
                error: pages.catalogue.messages(in: flow.language)["error_code"])
        } catch let error as AuthError {
            // The step's token ended (expired, or too many wrong codes): start again.
            var again = session
            again.secondFactorToken = nil
            return try await signInPage(
                flow, session: again, request: request, status: Self.status(of: error), error: message(for: error, flow: flow),
                headers: try sessions.cookie(for: again))
        }
    }

    /// A sign-in that worked: the browser session (`session`, or a new one) becomes a
    /// signed-in one (new id and anti-forgery token), and the request goes on without asking
    /// again.
    func finish(_ flow: Flow, grant: TokenGrant, methods: [String], request: Request, session previous: BrowserSession?) async throws
        -> Response
    {
        guard let sessionID = grant.sessionID, let userID = grant.userID else {
            preconditionFailure("a login's grant names its session and user")
        }
        let signIn = BrowserSignIn(userID: userID, sessionID: sessionID, authTime: sessions.clock.now, methods: methods)
        let session = (previous ?? BrowserSession.start(now: signIn.authTime)).signedIn(as: signIn)
        return try await signedIn(flow, session: session, request: request, headers: try sessions.cookie(for: session))
    }

}
