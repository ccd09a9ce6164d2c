import AuthCore
import Hummingbird

/// The signed-in account: `GET /me`. Sign-up, password changes and deletion join it here.
///
/// ```swift
/// router.addRoutes(AccountController(sessions: sessions).routes)
/// ```
public struct AccountController<Storage: AuthStorage>: Sendable {
    /// Verifies the bearer token and finds its account.
    public let sessions: SessionService<Storage>

    /// Creates the controller.
    public init(sessions: SessionService<Storage>) {
        self.sessions = sessions
    }

    /// The routes of this feature.
    public var routes: RouteCollection<AuthRequestContext> {
        let routes = RouteCollection(context: AuthRequestContext.self)
        routes.get("/me", use: me)
        return routes
    }

    @Sendable func me(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let user = try await sessions.profile(accessToken: try BearerToken(request.headers[.authorization]).value)
        return JSONResponse.make(status: .ok, body: ProfileResponse(user))
    }
}
