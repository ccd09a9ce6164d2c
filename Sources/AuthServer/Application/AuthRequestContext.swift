import AuthCore
import Hummingbird
import NIOCore

/// The request context of authd's router: Hummingbird's core storage plus the client's
/// address (for per-address throttling, the audit log and the request log).
///
/// ```swift
/// let router = Router(context: AuthRequestContext.self)
/// ```
public struct AuthRequestContext: RequestContext, RemoteAddressRequestContext {
    /// Hummingbird's per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// The connected peer, nil in in-process tests.
    public let remoteAddress: SocketAddress?
    /// The client's IP address as text: the socket peer, or what a trusted proxy reported
    /// (``ClientAddressMiddleware`` sets it).
    public var clientAddress: String?

    /// Creates the context for a request arriving on `source.channel`.
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
        self.clientAddress = remoteAddress?.ipAddress
    }

    /// The client's address and the request id, for the services.
    public var origin: RequestOrigin {
        RequestOrigin(clientAddress: clientAddress, requestID: id)
    }

    /// ``origin`` with `request`'s `User-Agent`: for the routes that start a session, which
    /// keeps it for its owner's list.
    public func origin(of request: Request) -> RequestOrigin {
        var origin = origin
        origin.userAgent = request.headers[.userAgent]
        return origin
    }
}
