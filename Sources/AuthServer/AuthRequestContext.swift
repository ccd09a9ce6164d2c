import Hummingbird
import NIOCore

/// The request context of authd's router: Hummingbird's core storage plus the client's
/// address (for per-address throttling).
///
/// ```swift
/// let router = Router(context: AuthRequestContext.self)
/// ```
public struct AuthRequestContext: RequestContext, RemoteAddressRequestContext {
    /// Hummingbird's per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// The connected peer, nil in in-process tests.
    public let remoteAddress: SocketAddress?

    /// Creates the context for a request arriving on `source.channel`.
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }

    /// The client's IP address as text, for throttling.
    public var clientAddress: String? {
        remoteAddress?.ipAddress
    }
}
