import AuthCore
import Hummingbird

/// `GET`/`POST /userinfo` (OpenID Connect Core §5.3): the claims of the user an OpenID
/// Connect client's access token (`Authorization: Bearer`) was issued for, by its scopes;
/// `invalid_token` (401, with `WWW-Authenticate: Bearer`) for any other token, or one whose
/// session ended.
///
/// ```swift
/// router.addRoutes(UserInfoController(provider: provider).routes)
/// ```
public struct UserInfoController<Storage: AuthStorage>: Sendable {
    public let provider: OpenIDProvider<Storage>

    public init(provider: OpenIDProvider<Storage>) {
        self.provider = provider
    }

    public var routes: RouteCollection<AuthRequestContext> {
        let routes = RouteCollection(context: AuthRequestContext.self)
        routes.get("/userinfo", use: userInfo)
        routes.post("/userinfo", use: userInfo)
        return routes
    }

    @Sendable func userInfo(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let token = try BearerToken(request.headers[.authorization])
        return JSONResponse.make(status: .ok, body: try await provider.userInfo(accessToken: token.value))
    }
}
