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
        context.clientAddress = trusted.clientAddress(
            peer: context.remoteAddress?.ipAddress, forwardedFor: forwarded.isEmpty ? nil : forwarded)
        return try await next(request, context)
    }
}

extension HTTPField.Name {
    /// `X-Forwarded-For`.
    static let xForwardedFor: HTTPField.Name = {
        guard let name = HTTPField.Name("X-Forwarded-For") else { preconditionFailure("X-Forwarded-For is a valid field name") }
        return name
    }()

    /// `X-Forwarded-Proto`: the scheme a trusted proxy was reached with (the OAuth metadata's URLs).
    static let xForwardedProto: HTTPField.Name = {
        guard let name = HTTPField.Name("X-Forwarded-Proto") else { preconditionFailure("X-Forwarded-Proto is a valid field name") }
        return name
    }()

    /// `X-Forwarded-Host`: the host a trusted proxy was reached at (the OAuth metadata's URLs).
    static let xForwardedHost: HTTPField.Name = {
        guard let name = HTTPField.Name("X-Forwarded-Host") else { preconditionFailure("X-Forwarded-Host is a valid field name") }
        return name
    }()
}
