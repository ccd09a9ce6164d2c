import AuthCore
import Hummingbird
import WebForms

/// `GET`/`POST /userinfo` (OpenID Connect Core §5.3): the claims of the user an OpenID
/// Connect client's access token was issued for, by its scopes. The token comes as
/// `Authorization: Bearer`, or in a `POST`'s form as `access_token` (RFC 6750 §2.2, which
/// pyoidc sends), never both (§2);
/// `invalid_token` (401, with `WWW-Authenticate: Bearer`) for any other token, or one whose
/// session ended.
///
/// ```swift
/// router.addRoutes(UserInfoController(provider: provider, maxBodySize: 64 * 1024).routes)
/// ```
public struct UserInfoController<Storage: AuthStorage>: Sendable {
    public let provider: OpenIDProvider<Storage>
    /// Largest accepted form, bytes.
    public let maxBodySize: Int

    public init(provider: OpenIDProvider<Storage>, maxBodySize: Int) {
        self.provider = provider
        self.maxBodySize = maxBodySize
    }

    public var routes: RouteCollection<AuthRequestContext> {
        let routes = RouteCollection(context: AuthRequestContext.self)
        routes.get("/userinfo", use: userInfo)
        routes.post("/userinfo", use: userInfo)
        return routes
    }

    @Sendable func userInfo(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let token: String
        if request.method == .post, FormEncoding.isForm(contentType: request.headers[.contentType]) {
            let form = try await FormRequestBody.read(from: request, limit: maxBodySize)
            if let posted = form["access_token"] {
                guard request.headers[.authorization] == nil else {
                    throw AuthError.invalidRequest("send the access token once: in the Authorization header or in the form")
                }
                token = posted
            } else {
                token = try BearerToken(request.headers[.authorization]).value
            }
        } else {
            token = try BearerToken(request.headers[.authorization]).value
        }
        return JSONResponse.make(status: .ok, body: try await provider.userInfo(accessToken: token))
    }
}
