import AuthCore
import Hummingbird
import Prometheus

/// The routes of authd, generic over its storage so the composition root picks it.
///
/// ```swift
/// let router = buildRouter(login: login, sessions: sessions, readiness: storage.readiness, configuration: configuration)
/// ```
public func buildRouter<Storage: AuthStorage>(
    login: LoginService<Storage>,
    sessions: SessionService<Storage>,
    readiness: some ReadinessProbe,
    configuration: AppConfiguration
) -> Router<AuthRequestContext> {
    let maxBodySize = configuration.maxBodySize
    let issuer = login.issuer
    let router = Router(context: AuthRequestContext.self)
    // Without trusted proxies the context's socket peer is the client: nothing to rewrite.
    if configuration.trustedProxies != .none {
        router.add(middleware: ClientAddressMiddleware(trusted: configuration.trustedProxies))
    }
    router.add(middleware: RequestLogMiddleware())
    router.add(middleware: HTTPMetricsMiddleware(metrics: configuration.metrics))
    let routes = RouteMethods()
    router.add(middleware: ErrorMiddleware(routes: routes))

    router.post("/login") { request, context in
        let body = try await JSONRequestBody(request: request, limit: maxBodySize, fields: ["username", "password"])
        let username = try body.string("username")
        let password = try body.string("password")
        let grant = try await login.login(username: username, password: password, origin: context.origin)
        return JSONResponse.make(status: .ok, body: grant)
    }

    router.post("/token/refresh") { request, context in
        let body = try await JSONRequestBody(request: request, limit: maxBodySize, fields: ["refresh_token"])
        let grant = try await sessions.refresh(refreshToken: try body.string("refresh_token"), origin: context.origin)
        return JSONResponse.make(status: .ok, body: grant)
    }

    router.post("/logout") { request, context in
        let body = try await JSONRequestBody(request: request, limit: maxBodySize, fields: ["refresh_token"])
        try await sessions.logout(refreshToken: try body.string("refresh_token"), origin: context.origin)
        return Response(status: .noContent, headers: [.cacheControl: "no-store"])
    }

    router.get("/me") { request, _ in
        let profile = try await sessions.profile(accessToken: try BearerToken(request.headers[.authorization]).value)
        return JSONResponse.make(status: .ok, body: profile)
    }

    let jwksCacheControl = "public, max-age=\(configuration.jwksMaxAge)"
    router.get("/.well-known/jwks.json") { _, _ in
        JSONResponse.make(status: .ok, body: await issuer.jwks, headers: [.cacheControl: jwksCacheControl])
    }

    router.get("/health/live") { _, _ in
        JSONResponse.make(status: .ok, body: ["status": "ok"])
    }

    router.get("/health/ready") { _, _ in
        try await readiness.check()
        return JSONResponse.make(status: .ok, body: ["status": "ok"])
    }

    // The document exported from contracts/ (scripts/openapi); a test keeps it current.
    let openAPI = ByteBuffer(string: OpenAPIDocument.json)
    router.get("/openapi.json") { _, _ in
        Response(
            status: .ok,
            headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "public, max-age=300"],
            body: .init(byteBuffer: openAPI)
        )
    }

    let registry = configuration.metricsRegistry
    let metrics = configuration.metrics
    let pool = login.pool
    router.get("/metrics") { _, _ in
        let load = await pool.load()
        metrics.hashQueue(running: load.running, waiting: load.waiting)
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer()))
        )
    }
    routes.record(router.routes)
    return router
}
