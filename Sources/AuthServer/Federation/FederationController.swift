import AuthCore
import Foundation
import Hummingbird

/// Sign-in with upstream providers over the API: `POST /login/id-token` (an ID token an app
/// got natively from Apple, Google or another OpenID provider), and an account's links to
/// them: `GET /me/identities`, `POST /me/identities` (confirm a `link_token`, or link a fresh
/// sign-in) and `DELETE /me/identities/{id}`, the last two after a recent authentication.
/// (`GET /me` stays the one read per second of the account that it is.)
///
/// ```swift
/// router.addRoutes(FederationController(federation: federation, sessions: sessions, maxBodySize: 64 * 1024).routes)
/// ```
public struct FederationController<Storage: AuthStorage>: Sendable {
    /// The federation rules.
    public let federation: FederatedLogin<Storage>
    /// Verifies the bearer token and finds its account.
    public let sessions: SessionService<Storage>
    /// Largest accepted request body, bytes.
    public let maxBodySize: Int

    /// Creates the controller.
    public init(federation: FederatedLogin<Storage>, sessions: SessionService<Storage>, maxBodySize: Int) {
        self.federation = federation
        self.sessions = sessions
        self.maxBodySize = maxBodySize
    }

    /// The routes of this feature.
    public var routes: RouteCollection<AuthRequestContext> {
        let routes = RouteCollection(context: AuthRequestContext.self)
        routes.post("/login/id-token", use: logIn)
        routes.get("/me/identities", use: list)
        routes.post("/me/identities", use: link)
        routes.delete("/me/identities/:id", use: unlink)
        return routes
    }

    @Sendable func logIn(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await JSONRequestBody.decode(IDTokenLoginRequest.self, from: request, limit: maxBodySize)
        let origin = context.origin(of: request)
        let grant: TokenGrant
        switch (body.idToken, body.authorizationCode, body.clientID) {
        case (let idToken?, nil, nil):
            grant = try await federation.signIn(
                provider: body.provider.value, idToken: idToken.value, nonce: body.nonce?.value, origin: origin)
        case (nil, let code?, let clientID):
            grant = try await federation.signIn(
                provider: body.provider.value, authorizationCode: code.value, clientID: clientID?.value, nonce: body.nonce?.value,
                origin: origin)
        default:
            throw AuthError.invalidRequest("send either id_token, or authorization_code (with its client_id)")
        }
        return JSONResponse.make(status: .ok, body: TokenResponse(grant))
    }

    @Sendable func list(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let user = try await sessions.account(of: request)
        return JSONResponse.make(
            status: .ok, body: IdentityList(identities: try await federation.identities(of: user).map(IdentityResponse.init)))
    }

    @Sendable func link(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (user, body) = try await sessions.account(of: request, recentlyAuthenticated: true) {
            try await JSONRequestBody.decode(IdentityLinkRequest.self, from: request, limit: maxBodySize)
        }
        let identity: Identity
        switch (body.linkToken, body.provider, body.idToken) {
        case (let token?, nil, nil):
            identity = try await federation.confirmLink(token: token.value, for: user, origin: context.origin)
        case (nil, let provider?, let idToken?):
            identity = try await federation.link(
                provider: provider.value, idToken: idToken.value, nonce: body.nonce?.value, to: user, origin: context.origin)
        default:
            throw AuthError.invalidRequest("send either link_token, or provider and id_token (with its nonce)")
        }
        return JSONResponse.make(status: .created, body: IdentityResponse(identity))
    }

    @Sendable func unlink(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let user = try await sessions.account(of: request, recentlyAuthenticated: true) {}.0
        guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
            throw AuthError.notFound("The account has no identity with this id.")
        }
        try await federation.unlink(id: id, of: user, origin: context.origin)
        sessions.accounts.forget(user.id)
        return JSONResponse.noContent()
    }
}
