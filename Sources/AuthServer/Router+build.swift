import AuthCore
import Hummingbird

/// The routes of authd, generic over its storage so the composition root picks it.
///
/// ```swift
/// let router = buildRouter(login: login, issuer: issuer, readiness: database, maxBodySize: 64 * 1024)
/// ```
public func buildRouter<Storage: AuthStorage>(
    login: LoginService<Storage>,
    issuer: AccessTokenIssuer,
    readiness: some ReadinessProbe,
    maxBodySize: Int
) -> Router<AuthRequestContext> {
    let router = Router(context: AuthRequestContext.self)
    router.add(middleware: RequestLogMiddleware())
    let routes = RouteMethods()
    router.add(middleware: ErrorMiddleware(routes: routes))

    router.post("/login") { request, context in
        let body = try await JSONRequestBody(request: request, limit: maxBodySize)
        let username = try body.string("username")
        let password = try body.string("password")
        let grant = try await login.login(username: username, password: password, clientAddress: context.clientAddress)
        return JSONResponse.make(status: .ok, body: grant)
    }

    router.get("/.well-known/jwks.json") { _, _ in
        JSONResponse.make(status: .ok, body: await issuer.jwks, headers: [.cacheControl: "public, max-age=300"])
    }

    router.get("/health/live") { _, _ in
        JSONResponse.make(status: .ok, body: ["status": "ok"])
    }

    router.get("/health/ready") { _, _ in
        try await readiness.check()
        return JSONResponse.make(status: .ok, body: ["status": "ok"])
    }
    routes.record(router.routes)
    return router
}

