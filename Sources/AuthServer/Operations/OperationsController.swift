import AuthCore
import Hummingbird
import Prometheus

/// What operators and load balancers ask: `GET /health/live`, `GET /health/ready` (the
/// storage answers), `GET /metrics` (Prometheus text) and `GET /openapi.json`.
///
/// ```swift
/// router.addRoutes(OperationsController(readiness: storage.readiness, pool: pool, registry: registry, metrics: metrics).routes)
/// ```
public struct OperationsController<Readiness: ReadinessProbe>: Sendable {
    /// What readiness asks.
    public let readiness: Readiness
    /// The hashing pool whose load `/metrics` reports.
    public let pool: BlockingWorkPool
    /// Where the metrics are kept.
    public let registry: PrometheusCollectorRegistry
    /// The metrics recorded into ``registry``.
    public let metrics: AuthMetrics
    /// The document exported from contracts/ (scripts/openapi writes `openapi.json`, embedded
    /// in the code), made into a buffer once.
    private let openAPIDocument = ByteBuffer(bytes: PackageResources.openapi_json)

    /// Creates the controller.
    public init(readiness: Readiness, pool: BlockingWorkPool, registry: PrometheusCollectorRegistry, metrics: AuthMetrics) {
        self.readiness = readiness
        self.pool = pool
        self.registry = registry
        self.metrics = metrics
    }

    /// The routes of this feature on the public port; `/metrics` among them unless
    /// `metrics` is false (it is then on a port of its own: ``metricsRoutes``).
    public func routes(metrics: Bool = true) -> RouteCollection<AuthRequestContext> {
        let routes = RouteCollection(context: AuthRequestContext.self)
        routes.get("/health/live", use: live)
        routes.get("/health/ready", use: ready)
        if metrics { routes.get("/metrics", use: exposition) }
        routes.get("/openapi.json", use: openAPI)
        return routes
    }

    /// `GET /metrics` alone, for the metrics port.
    public var metricsRoutes: RouteCollection<AuthRequestContext> {
        let routes = RouteCollection(context: AuthRequestContext.self)
        routes.get("/metrics", use: exposition)
        return routes
    }

    @Sendable func live(_ request: Request, context: AuthRequestContext) async throws -> Response {
        JSONResponse.make(status: .ok, body: ["status": "ok"])
    }

    @Sendable func ready(_ request: Request, context: AuthRequestContext) async throws -> Response {
        try await readiness.check()
        return JSONResponse.make(status: .ok, body: ["status": "ok"])
    }

    @Sendable func exposition(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let load = await pool.load()
        metrics.hashQueue(running: load.running, waiting: load.waiting)
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer()))
        )
    }

    /// The document exported from contracts/; a test keeps it current.
    @Sendable func openAPI(_ request: Request, context: AuthRequestContext) async throws -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "public, max-age=300"],
            body: .init(byteBuffer: openAPIDocument)
        )
    }
}
