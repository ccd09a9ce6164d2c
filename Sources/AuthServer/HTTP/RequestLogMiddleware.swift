import HTTPTypes
import Hummingbird
import Logging

/// Logs one line per request: method, path (never the query or body), status, duration,
/// the client's address (as ``ClientAddressMiddleware`` resolved it) and the request id,
/// which is also returned as `X-Request-Id`.
///
/// ```swift
/// router.add(middleware: RequestLogMiddleware())
/// ```
public struct RequestLogMiddleware: RouterMiddleware {
    /// Creates the middleware.
    public init() {}

    public func handle(
        _ request: Request, context: AuthRequestContext,
        next: (Request, AuthRequestContext) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        var response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
        response.headers[.requestID] = context.id
        context.logger.info(
            "request",
            metadata: [
                "method": "\(request.method.rawValue)",
                "path": "\(request.uri.path)",
                "status": "\(response.status.code)",
                "client": "\(context.clientAddress ?? "-")",
                "ms": "\((milliseconds * 10).rounded() / 10)",
            ]
        )
        return response
    }
}

extension HTTPField.Name {
    /// `X-Request-Id`.
    static let requestID: HTTPField.Name = {
        guard let name = HTTPField.Name("X-Request-Id") else { preconditionFailure("X-Request-Id is a valid field name") }
        return name
    }()
}
