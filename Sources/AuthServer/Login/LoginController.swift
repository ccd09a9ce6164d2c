import AuthCore
import Hummingbird

/// `POST /login`: credentials for a token pair.
///
/// ```swift
/// router.addRoutes(LoginController(login: login, maxBodySize: 64 * 1024).routes)
/// ```
public struct LoginController<Storage: AuthStorage>: Sendable {
    /// The login rules.
    public let login: LoginService<Storage>
    /// Largest accepted request body, bytes.
    public let maxBodySize: Int

    /// Creates the controller.
    public init(login: LoginService<Storage>, maxBodySize: Int) {
        self.login = login
        self.maxBodySize = maxBodySize
    }

    /// The routes of this feature.
    public var routes: RouteCollection<AuthRequestContext> {
        let routes = RouteCollection(context: AuthRequestContext.self)
        routes.post("/login", use: logIn)
        return routes
    }

    @Sendable func logIn(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await JSONRequestBody.decode(LoginRequest.self, from: request, limit: maxBodySize)
        let grant = try await login.login(username: body.username.value, password: body.password.value, origin: context.origin(of: request))
        return JSONResponse.make(status: .ok, body: TokenResponse(grant))
    }
}
