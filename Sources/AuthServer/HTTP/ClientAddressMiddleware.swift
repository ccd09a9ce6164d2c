import HTTPTypes
import Hummingbird

/// Believes `X-Forwarded-For` only from ``TrustedProxies``: sets
/// ``AuthRequestContext/clientAddress`` before anything else reads it.
///
/// ```swift
/// router.add(middleware: ClientAddressMiddleware(trusted: try TrustedProxies(["10.0.0.0/8"])))
/// ```
public struct ClientAddressMiddleware: RouterMiddleware {
    /// The proxies whose header is believed.
    public let trusted: TrustedProxies

    /// Creates the middleware.
    public init(trusted: TrustedProxies) {
        self.trusted = trusted
    }

    public func handle(
        _ request: Request, context: AuthRequestContext,
        next: (Request, AuthRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        let forwarded = request.headers[values: .xForwardedFor].joined(separator: ",")
        context.clientAddress = trusted.clientAddress(peer: context.remoteAddress?.ipAddress, forwardedFor: forwarded.isEmpty ? nil : forwarded)
        return try await next(request, context)
    }
}

extension HTTPField.Name {
    /// `X-Forwarded-For`.
    static let xForwardedFor: HTTPField.Name = {
        guard let name = HTTPField.Name("X-Forwarded-For") else { preconditionFailure("X-Forwarded-For is a valid field name") }
        return name
    }()
}
