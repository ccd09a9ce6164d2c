import AuthCore
import Hummingbird
import Logging

/// Turns every error into authd's JSON error shape, in one place: ``AuthCore/AuthError``s as
/// they are, a request for a known path with the wrong method into 405 with `Allow`, other
/// unmatched paths into 404, and anything unexpected into a 500 whose body says nothing
/// of the cause (the cause is logged by type only).
///
/// ```swift
/// router.add(middleware: ErrorMiddleware(allowedMethods: ["/login": ["POST"]]))
/// ```
public struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Methods served at each path, for 405 answers.
    public let allowedMethods: [String: [String]]

    /// Creates the middleware.
    public init(allowedMethods: [String: [String]]) {
        self.allowedMethods = allowedMethods
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as AuthError {
            return error.response()
        } catch let error as HTTPError {
            return translate(error, path: request.uri.path).response()
        } catch let error as any HTTPResponseError {
            // Errors from Hummingbird itself (for example a body that is too large).
            return (error.status == .contentTooLarge ? AuthError.requestTooLarge() : AuthError.invalidRequest("The request could not be processed.")).response()
        } catch is CancellationError {
            return AuthError.serviceUnavailable().response()
        } catch {
            context.logger.error("unexpected error", metadata: ["error_type": "\(type(of: error))"])
            return AuthError.internalError.response()
        }
    }

    private func translate(_ error: HTTPError, path: String) -> AuthError {
        switch error.status {
        case .notFound:
            if let methods = allowedMethods[path] { return .methodNotAllowed(allow: methods) }
            return .notFound
        case .methodNotAllowed:
            return .methodNotAllowed(allow: allowedMethods[path] ?? [])
        case .contentTooLarge:
            return .requestTooLarge()
        case .unsupportedMediaType:
            return .unsupportedMediaType
        case .serviceUnavailable:
            return .serviceUnavailable()
        default:
            return .invalidRequest(error.body ?? "The request could not be processed.")
        }
    }
}
