import AuthCore
import Foundation
import HTTPTypes
import Hummingbird
import WebForms

/// `GET /logout`, and `POST /logout` with a form (OpenID Connect RP-Initiated Logout 1.0): ends the browser's sign-in
/// and every session it started, then sends the browser to the client's
/// `post_logout_redirect_uri` with its `state`, when the client registered that URI exactly
/// (never an open redirect), or shows that it is signed out.
///
/// A logout carrying an `id_token_hint` authd signed for this browser's sign-in (its `sid`)
/// ends it at once; any other asks the user first with a form (anti-forgery token and all),
/// so a page of another site cannot sign the browser out (§2: the OP asks when it cannot
/// tell the request came from the user's client).
///
/// ```swift
/// router.addRoutes(LogoutController(provider: provider, sessions: browserSessions, pages: .builtIn, maxBodySize: 64 * 1024).routes)
/// ```
public struct LogoutController<Storage: AuthStorage>: Sendable {
    public let provider: OpenIDProvider<Storage>
    public let sessions: BrowserSessions
    public let pages: WebPages
    public let maxBodySize: Int

    public init(provider: OpenIDProvider<Storage>, sessions: BrowserSessions, pages: WebPages, maxBodySize: Int) {
        self.provider = provider
        self.sessions = sessions
        self.pages = pages
        self.maxBodySize = maxBodySize
    }

    public var routes: RouteCollection<AuthRequestContext> {
        let routes = RouteCollection(context: AuthRequestContext.self)
        routes.get("/logout") { request, context in
            try await logout(request, context: context, parameters: AuthorizeController<Storage>.query(of: request), confirmed: false)
        }
        // `POST /logout` with a JSON body is authd's own logout (a refresh token), which hands
        // a form to ``endSession(_:context:)``; the confirmation posts here.
        routes.post(RouterPath(Self.confirmPath), use: endSession)
        return routes
    }

    /// The end-session request as a form (`POST /logout`, and the confirmation's
    /// `POST /logout/confirm`): ends the sign-in at once when the form is the confirmation's
    /// (its anti-forgery token), else as `GET /logout` does.
    @Sendable public func endSession(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let form = try await FormRequestBody.read(from: request, limit: maxBodySize)
        let confirmed = sessions.acceptsForm(request, csrfToken: form["csrf"], session: sessions.session(of: request))
        return try await logout(
            request, context: context, parameters: form.fields.map { (name: $0.key, value: $0.value) }, confirmed: confirmed)
    }

    /// Where the confirmation form posts.
    static var confirmPath: String { "/logout/confirm" }

    /// The parameters this endpoint reads, carried through its confirmation form.
    static var parameterNames: [String] { ["id_token_hint", "post_logout_redirect_uri", "state", "client_id", "ui_locales"] }

    func logout(_ request: Request, context: AuthRequestContext, parameters: [(name: String, value: String)], confirmed: Bool)
        async throws -> Response
    {
        var values: [String: String] = [:]
        for (name, value) in parameters where Self.parameterNames.contains(name) && !value.isEmpty { values[name] = value }
        let language = pages.language(uiLocales: (values["ui_locales"] ?? "").split(separator: " ").map(String.init), request: request)
        let hint = values["id_token_hint"].flatMap(provider.sessions.issuer.idTokenHint)
        if values["id_token_hint"] != nil && hint == nil {
            return pages.message(
                "authorize_error", status: .badRequest, for: request, language: language, detail: "id_token_hint is not valid")
        }
        // The client: the hint's audience, which client_id must agree with (§2).
        let clientID = hint?.aud.first ?? values["client_id"]
        if let hinted = hint?.aud.first, let named = values["client_id"], hinted != named {
            return pages.message(
                "authorize_error", status: .badRequest, for: request, language: language, detail: "client_id is not the hint's audience")
        }
        var destination: String?
        if let uri = values["post_logout_redirect_uri"] {
            guard let clientID, let client = try await provider.client(id: clientID),
                client.signIn.postLogoutRedirectURIs.contains(where: { $0.text == uri })
            else {
                return pages.message(
                    "authorize_error", status: .badRequest, for: request, language: language,
                    detail: "post_logout_redirect_uri is not one the client registered")
            }
            destination = uri + (values["state"].map { (uri.contains("?") ? "&" : "?") + FormEncoding.encode([("state", $0)]) } ?? "")
        }

        let session = sessions.session(of: request)
        let signIn = session?.signIn
        let hintMatches = signIn != nil && hint?.sid == signIn?.sessionID.uuidString.lowercased()
        if let session, signIn != nil, !(confirmed || hintMatches) {
            let fields = values.sorted { $0.key < $1.key }.map { ["name": $0.key, "value": $0.value] }
            return pages.page(
                "sign-out", status: .ok, for: request, values: ["action": Self.confirmPath, "csrf": session.csrfToken, "fields": fields],
                language: language, formTargets: destination.flatMap { AuthorizeController<Storage>.formTarget(of: $0) }.map { [$0] } ?? [])
        }
        var headers: HTTPFields = [:]
        if let signIn {
            try await provider.signOut(signIn, origin: context.origin(of: request))
            let cleared = BrowserSession.start(now: sessions.clock.now)
            headers = try sessions.cookie(for: cleared)
        }
        if let destination { return PageResponse.seeOther(destination, headers: headers) }
        return pages.message("signed_out", status: .ok, for: request, headers: headers, language: language)
    }
}
