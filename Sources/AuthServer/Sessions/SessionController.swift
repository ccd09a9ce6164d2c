import AuthCore
import Hummingbird

/// What follows a login: `POST /token/refresh` (rotation) and `POST /logout`.
///
/// ```swift
/// router.addRoutes(SessionController(sessions: sessions, maxBodySize: 64 * 1024).routes)
/// ```
public struct SessionController<Storage: AuthStorage>: Sendable {
    /// The session rules.
    public let sessions: SessionService<Storage>
    /// Largest accepted request body, bytes.
    public let maxBodySize: Int

    /// Creates the controller.
    public init(sessions: SessionService<Storage>, maxBodySize: Int) {
        self.sessions = sessions
        self.maxBodySize = maxBodySize
    }

    /// The routes of this feature.
    public var routes: RouteCollection<AuthRequestContext> {
        let routes = RouteCollection(context: AuthRequestContext.self)
        routes.post("/token/refresh", use: refresh)
        routes.post("/logout", use: logOut)
        return routes
    }

    @Sendable func refresh(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await JSONRequestBody.decode(RefreshTokenRequest.self, from: request, limit: maxBodySize)
        let grant = try await sessions.refresh(refreshToken: body.refreshToken.value, origin: context.origin)
        return JSONResponse.make(status: .ok, body: TokenResponse(grant))
    }

    @Sendable func logOut(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await JSONRequestBody.decode(RefreshTokenRequest.self, from: request, limit: maxBodySize)
        try await sessions.logout(refreshToken: body.refreshToken.value, origin: context.origin)
        return Response(status: .noContent, headers: [.cacheControl: "no-store"])
    }
}
