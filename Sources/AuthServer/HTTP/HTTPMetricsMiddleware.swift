import AuthCore
import Hummingbird

/// Counts every answer by method, matched route (never the raw path) and status, errors
/// included: place it outside ``ErrorMiddleware``.
///
/// ```swift
/// router.add(middleware: HTTPMetricsMiddleware(metrics: metrics))
/// router.add(middleware: ErrorMiddleware(routes: routes))
/// ```
public struct HTTPMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Where the counts go.
    public let metrics: AuthMetrics

    /// Creates the middleware.
    public init(metrics: AuthMetrics) {
        self.metrics = metrics
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        metrics.httpRequest(method: request.method.rawValue, route: context.endpointPath ?? "NotFound", status: Int(response.status.code))
        return response
    }
}
