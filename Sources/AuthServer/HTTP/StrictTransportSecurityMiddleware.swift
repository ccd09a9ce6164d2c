import HTTPTypes
import Hummingbird

/// Adds `Strict-Transport-Security` to every answer of a server that speaks HTTPS, so a
/// browser that once reached it over HTTPS never falls back to HTTP for it (RFC 6797).
/// `includeSubDomains` is left out: other hosts of the domain are the operator's call.
///
/// ```swift
/// if configuration.tls != nil { router.add(middleware: StrictTransportSecurityMiddleware()) }
/// ```
public struct StrictTransportSecurityMiddleware: RouterMiddleware {
    /// The header's value: one year.
    public static let value = "max-age=31536000"

    /// Creates the middleware.
    public init() {}

    public func handle(
        _ request: Request, context: AuthRequestContext,
        next: (Request, AuthRequestContext) async throws -> Response
    ) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.strictTransportSecurity] = Self.value
        return response
    }
}

extension HTTPField.Name {
    /// `Strict-Transport-Security`.
    static let strictTransportSecurity = Self("Strict-Transport-Security")!
}
