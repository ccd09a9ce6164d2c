import AuthCore
import Foundation
import HTTPTypes
import Hummingbird
import WebForms

// Sign-in with an upstream provider from the sign-in page, authd its relying party
// (``AuthCore/ProviderSignInAttempt``): the page's button, the callback the provider sends the
// browser back to, and the link of the provider's identity to an existing account, which
// its owner confirms once signed in.
extension AuthorizeController {
    /// The one route providers send the browser back to (their redirect URI).
    static var callbackPath: String { "/federation/callback" }

    /// authd's redirect URI at providers: under its public URL (`serve --public-url`), else
    /// under its issuer, which is that URL unless `--issuer` names another.
    var callbackURI: String {
        let base = publicURL ?? issuer
        return (base.hasSuffix("/") ? String(base.dropLast()) : base) + Self.callbackPath
    }

    /// The sign-in page's provider buttons, and the origins of the providers' authorization
    /// endpoints (where the button's form leads, for the page's `form-action`).
    func providerButtons(_ flow: Flow) async throws -> (buttons: [[String: String]], origins: [String]) {
        guard federation != nil else { return ([], []) }
        let providers = try await provider.sessions.storage.providers.all()
        let buttons = providers.map { provider in
            let words = pages.catalogue.messages(in: flow.language, values: ["provider": provider.displayName])
            return ["name": provider.name, "kind": provider.kind.rawValue, "label": words["sign_in_with"] ?? provider.displayName]
        }
        let origins = providers.compactMap { Self.formTarget(of: $0.metadata.authorizationEndpoint) }
        return (buttons, Array(Set(origins)).sorted())
    }

    /// A provider button's POST: a new attempt in its cookie, and the browser sent to the
    /// provider.
    func startProviderSignIn(_ flow: Flow, form: FormRequestBody, session: BrowserSession, request: Request) async throws -> Response {
        guard let federation else { throw AuthError.notFound("no identity provider is offered here") }
        let chosen: IdentityProvider
        do {
            chosen = try await federation.provider(named: form["provider"] ?? "")
        } catch let error as AuthError where error.code == .invalidRequest {
            return try await signInPage(flow, session: session, request: request, status: .badRequest, error: error.description)
        }
        let attempt = ProviderSignInAttempt.start(provider: chosen, redirectURI: callbackURI, resume: flow.query, now: sessions.clock.now)
        return PageResponse.seeOther(
            attempt.authorizationURL(at: chosen, loginHint: flow.request.loginHint), headers: try sessions.cookie(for: attempt))
    }

    /// `GET`/`POST /federation/callback`: the provider's answer (in the query, or Apple's
    /// `form_post`), taken only with the attempt whose `state` it carries, and only once (the
    /// attempt's cookie ends here; the code and its ID token sign in once). It ends in authd's
    /// authorization request, signed in, or on its sign-in page with what went wrong.
    func callback(_ request: Request, context: AuthRequestContext) async throws -> Response {
        var response = try await answer(request, context: context)
        response.headers.append(contentsOf: sessions.endingAttempt)
        return response
    }

    /// The callback's answer, before its attempt's cookie is ended.
    private func answer(_ request: Request, context: AuthRequestContext) async throws -> Response {
        guard let federation else { throw AuthError.notFound("no identity provider is offered here") }
        // Whatever arrives here is answered with a page: an answer that is not a form, or not
        // a valid one, is an answer without the attempt's state.
        let parameters: FormRequestBody
        if request.method == .post {
            parameters = (try? await FormRequestBody.read(from: request, limit: maxBodySize)) ?? FormRequestBody.empty
        } else {
            parameters = (try? FormRequestBody(Data((request.uri.query ?? "").utf8))) ?? FormRequestBody.empty
        }
        guard let attempt = sessions.attempt(of: request) else {
            return pages.message("provider_expired", status: .badRequest, for: request)
        }
        let origin = context.origin(of: request)
        guard attempt.accepts(state: parameters["state"]) else {
            try await federation.refuseAnswer(to: attempt, reason: "state_mismatch", origin: origin)
            return pages.message("provider_expired", status: .badRequest, for: request)
        }
        let flow: Flow
        switch try await check(FormEncoding.decode(Data(attempt.resume.utf8)) ?? [], for: request) {
        case .success(let checked): flow = checked
        case .failure(let refused): return refused.response
        }
        // Apple's cross-site POST comes without the session's (`SameSite=Lax`) cookie: a new one.
        var session = BrowserSession.start(now: sessions.clock.now)
        let started = try sessions.cookie(for: session)
        let chosen = try await federation.provider(named: attempt.provider)
        let words = pages.catalogue.messages(in: flow.language, values: ["provider": chosen.displayName])
        // RFC 9207 §2.4: an answer naming another issuer is a mix-up, whatever else it says.
        if let issuer = parameters["iss"], issuer != chosen.issuer {
            try await federation.refuseAnswer(to: attempt, reason: "issuer_mismatch", origin: origin)
            return pages.message("provider_expired", status: .badRequest, for: request, language: flow.language)
        }
        guard let code = parameters["code"], parameters["error"] == nil else {
            return try await signInPage(
                flow, session: session, request: request, status: .unauthorized,
                error: words["error_provider_cancelled"], headers: started)
        }
        do {
            let grant = try await federation.signIn(
                returningFrom: attempt, at: chosen, code: code, name: AppleUserName.parse(parameters["user"]), origin: origin)
            return try await finish(flow, grant: grant, methods: ["fed"], request: request, session: session)
        } catch let error as AuthError {
            switch error.code {
            case .mfaRequired:
                session.secondFactorToken = error.mfaToken
                session.firstMethods = ["fed"]
                return try secondFactorPage(
                    flow, session: session, username: "", request: request, status: .ok, headers: try sessions.cookie(for: session))
            case .linkRequired:
                session.linking = error.linkToken.map { BrowserSession.PendingLink(provider: chosen.name, token: $0) }
                let notice = words["link_notice"]
                return try await signInPage(
                    flow, session: session, request: request, status: .ok, notice: notice, headers: try sessions.cookie(for: session))
            case .notFound:
                return try await signInPage(
                    flow, session: session, request: request, status: .unauthorized,
                    error: words["error_provider_no_account"], headers: started)
            case .invalidCredentials:
                // The provider refused the code, or its ID token did not verify: not a password.
                return try await signInPage(
                    flow, session: session, request: request, status: .unauthorized, error: words["error_provider_cancelled"],
                    headers: started)
            default:
                return try await signInPage(
                    flow, session: session, request: request, status: Self.status(of: error), error: message(for: error, flow: flow),
                    headers: started)
            }
        }
    }

    /// The page that offers the signed-in account the link of the provider's identity.
    func linkPage(
        _ flow: Flow, session: BrowserSession, linking: BrowserSession.PendingLink, signIn: BrowserSignIn, request: Request,
        headers: HTTPFields
    ) async throws -> Response {
        let username = try await provider.sessions.storage.users.user(withID: signIn.userID)?.username ?? ""
        let shown = (try? await federation?.provider(named: linking.provider))?.displayName ?? linking.provider
        return pages.page(
            "link-identity", status: .ok, for: request, values: ["action": flow.action(.link), "csrf": session.csrfToken],
            messageValues: ["provider": shown, "username": username], headers: headers, language: flow.language,
            formTargets: formTargets(flow))
    }

    /// The link page's POST: the identity linked when the owner says so (`decision=link`),
    /// then the request goes on, signed in either way.
    func confirmLink(_ flow: Flow, form: FormRequestBody, session: BrowserSession, request: Request, origin: RequestOrigin)
        async throws -> Response
    {
        guard let federation, let signIn = session.signIn, let linking = session.linking, try await provider.isLive(signIn),
            let user = try await provider.sessions.storage.users.user(withID: signIn.userID)
        else {
            return PageResponse.seeOther("/authorize?" + flow.query)
        }
        if form["decision"] == "link" {
            do {
                _ = try await federation.confirmLink(token: linking.token, for: user, origin: origin)
            } catch let error as AuthError where error.code == .invalidToken || error.code == .identityTaken {
                // Expired, another account's, or the identity linked elsewhere since: nothing to link.
            }
        }
        var next = session
        next.linking = nil
        return try await signedIn(flow, session: next, request: request, headers: try sessions.cookie(for: next))
    }
}
