import NIOCore
import NIOHTTPTypes
import Synchronization

/// The connections open from each client address, shared by every connection of a server:
/// past `limit` from one address, a new connection is closed as soon as it is accepted, so
/// one client cannot take the slots of `--max-connections` from everyone else. Trusted
/// proxies (whose connections carry many clients) are not limited.
///
/// ```swift
/// let connections = ConnectionsPerAddress(limit: 100, exempt: proxies)
/// connections.admit("203.0.113.9")   // true, until 100 are open
/// ```
public final class ConnectionsPerAddress: Sendable {
    /// Connections one address may hold open at once.
    public let limit: Int
    /// Addresses not limited.
    public let exempt: TrustedProxies
    private let open = Mutex<[String: Int]>([:])

    /// Creates the registry.
    public init(limit: Int, exempt: TrustedProxies = .none) {
        self.limit = limit
        self.exempt = exempt
    }

    /// Counts a connection from `address` and returns true, or returns false when the
    /// address holds `limit` already. Exempt addresses are not asked about:
    /// ``ConnectionsPerAddressHandler`` checks ``exempt`` first.
    public func admit(_ address: String) -> Bool {
        open.withLock { open in
            let count = open[address, default: 0]
            guard count < limit else { return false }
            open[address] = count + 1
            return true
        }
    }

    /// Forgets one connection of `address`.
    public func release(_ address: String) {
        open.withLock { open in
            let count = open[address, default: 0] - 1
            open[address] = count > 0 ? count : nil
        }
    }
}

/// Admits a new connection through ``ConnectionsPerAddress`` or closes it, and gives its
/// place back when it closes.
///
/// ```swift
/// .http1(configuration: .init(additionalChannelHandlers: [ConnectionsPerAddressHandler(connections: connections)]))
/// ```
final class ConnectionsPerAddressHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart

    private let connections: ConnectionsPerAddress
    private var admitted: String?

    init(connections: ConnectionsPerAddress) {
        self.connections = connections
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard let address = context.channel.remoteAddress?.ipAddress, !connections.exempt.contains(address) else { return }
        if connections.admit(address) {
            admitted = address
        } else {
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        giveBack()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        giveBack()
    }

    private func giveBack() {
        if let address = admitted {
            connections.release(address)
            admitted = nil
        }
    }
}

@available(*, unavailable)
extension ConnectionsPerAddressHandler: Sendable {}
