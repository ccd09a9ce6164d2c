import AuthCore
import Hummingbird
import Logging
import Synchronization

/// Turns every error into authd's JSON error shape, in one place: our own errors
/// (``WireError``: ``AuthCore/AuthError`` and ``HTTPRequestError``) as they are, a request for a known path with the wrong method into 405 with `Allow`, other
/// unmatched paths into 404, and anything unexpected into a 500 whose body says nothing
/// of the cause (the cause is logged by type only).
///
/// ```swift
/// let routes = RouteMethods()
/// router.add(middleware: ErrorMiddleware(routes: routes))
/// router.post("/login") { … }
/// routes.record(router.routes)
/// ```
public struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Methods served at each path, for 405 answers.
    public let routes: RouteMethods

    /// Creates the middleware.
    public init(routes: RouteMethods) {
        self.routes = routes
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any WireError {
            return error.response()
        } catch let error as HTTPError {
            return translate(error, path: request.uri.path)
        } catch let error as any HTTPResponseError {
            // Errors from Hummingbird itself (for example a body that is too large).
            return error.status == .contentTooLarge
                ? HTTPRequestError.requestTooLarge().response()
                : AuthError.invalidRequest("The request could not be processed.").response()
        } catch is CancellationError {
            return AuthError.serviceUnavailable().response()
        } catch {
            context.logger.error("unexpected error", metadata: ["error_type": "\(type(of: error))"])
            return AuthError.internalError.response()
        }
    }

    private func translate(_ error: HTTPError, path: String) -> Response {
        switch error.status {
        case .notFound:
            if let methods = routes.methods(at: path) { return HTTPRequestError.methodNotAllowed(allow: methods).response() }
            return HTTPRequestError.notFound.response()
        case .methodNotAllowed:
            return HTTPRequestError.methodNotAllowed(allow: routes.methods(at: path) ?? []).response()
        case .contentTooLarge:
            return HTTPRequestError.requestTooLarge().response()
        case .unsupportedMediaType:
            return HTTPRequestError.unsupportedMediaType.response()
        case .serviceUnavailable:
            return AuthError.serviceUnavailable().response()
        default:
            return AuthError.invalidRequest(error.body ?? "The request could not be processed.").response()
        }
    }
}

/// An error of authd's own, sent in the one error shape whatever route raised it.
///
/// ```swift
/// let error: any WireError = AuthError.invalidToken
/// error.response().status   // .unauthorized
/// ```
public protocol WireError: HTTPResponseError {
    /// The wire form: status, `{"error", "error_description"}` and the headers the status calls for.
    func response() -> Response
}

extension WireError {
    /// The same wire form whatever the request: Hummingbird's entry point.
    public func response(from request: Request, context: some RequestContext) -> Response {
        response()
    }
}

extension AuthError: WireError {}
extension HTTPRequestError: WireError {}

/// The methods a router serves at each path, recorded from the router itself once its
/// routes are registered (the middleware is added before the routes it wraps).
///
/// ```swift
/// routes.record(router.routes)
/// routes.methods(at: "/login")   // ["POST"]
/// ```
public final class RouteMethods: Sendable {
    private let table = Mutex<[String: [String]]>([:])

    /// An empty table.
    public init() {}

    /// Records every route of a router.
    public func record<Context>(_ routes: [Router<Context>.RouteDescription]) {
        table.withLock { table in
            for route in routes {
                table[route.path.description, default: []].append(route.method.rawValue)
            }
        }
    }

    /// The methods served at `path`, nil when the path is unknown.
    public func methods(at path: String) -> [String]? {
        table.withLock { $0[path] }
    }
}
