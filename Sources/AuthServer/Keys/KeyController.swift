import AuthCore
import Hummingbird

/// `GET /.well-known/jwks.json`: the published public keys, cacheable for `maxAge` seconds.
///
/// ```swift
/// router.addRoutes(KeyController(issuer: issuer, maxAge: 20).routes)
/// ```
public struct KeyController: Sendable {
    /// Holds the published keys.
    public let issuer: AccessTokenIssuer
    /// The `Cache-Control` value: public, for `maxAge` seconds.
    private let cacheControl: String

    /// Creates the controller; `maxAge` is the `Cache-Control: max-age` in seconds.
    public init(issuer: AccessTokenIssuer, maxAge: Int) {
        self.issuer = issuer
        self.cacheControl = "public, max-age=\(maxAge)"
    }

    /// The routes of this feature.
    public var routes: RouteCollection<AuthRequestContext> {
        let routes = RouteCollection(context: AuthRequestContext.self)
        routes.get("/.well-known/jwks.json", use: jwks)
        return routes
    }

    @Sendable func jwks(_ request: Request, context: AuthRequestContext) async throws -> Response {
        JSONResponse.make(status: .ok, body: issuer.jwks, headers: [.cacheControl: cacheControl])
    }
}
