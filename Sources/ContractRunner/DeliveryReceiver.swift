import ContractKit
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// The receiver `contract verify` runs for the deliveries contracts declare (`delivers:`):
/// an HTTP server on 127.0.0.1 and an ephemeral port, started before the provider, that
/// answers 204 to any request and records it in its ``inbox``. Its ``url`` is
/// `{{delivery_url}}` in `contract.yaml`, so the provider can be told where to deliver.
///
/// ```swift
/// let receiver = try await DeliveryReceiver.start()
/// defer { receiver.close() }
/// // start the provider with --delivery-url receiver.url, then:
/// let verifier = ContractVerifier(live: HTTPTransport(baseURL: url), states: nil, deliveries: receiver.inbox)
/// ```
public final class DeliveryReceiver: Sendable {
    /// `http://127.0.0.1:PORT`.
    public let url: String
    /// What arrived.
    public let inbox: DeliveryInbox
    private let channel: any Channel

    private init(url: String, inbox: DeliveryInbox, channel: any Channel) {
        self.url = url
        self.inbox = inbox
        self.channel = channel
    }

    /// Starts a receiver on `host:port` (0: a free port).
    public static func start(host: String = "127.0.0.1", port: Int = 0) async throws -> DeliveryReceiver {
        let inbox = DeliveryInbox()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(DeliveryReceiverHandler(inbox: inbox))
                }
            }
            .bind(host: host, port: port)
            .get()
        let bound = channel.localAddress?.port ?? port
        return DeliveryReceiver(url: "http://\(host):\(bound)", inbox: inbox, channel: channel)
    }

    /// Stops listening.
    public func close() {
        channel.close(promise: nil)
    }
}

/// Reads each request on a connection, records it in the inbox, and answers 204.
final class DeliveryReceiverHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let inbox: DeliveryInbox
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    /// Bodies beyond this are cut (a delivery is a small message).
    private static let maxBody = 1 << 20

    init(inbox: DeliveryInbox) {
        self.inbox = inbox
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let received):
            head = received
            body.clear()
        case .body(var chunk):
            if body.readableBytes + chunk.readableBytes <= Self.maxBody { body.writeBuffer(&chunk) }
        case .end:
            guard let head else { return }
            self.head = nil
            inbox.record(
                ContractRequest(
                    method: head.method.rawValue, target: head.uri,
                    headers: head.headers.map { (name: $0.name, value: $0.value) },
                    body: body.readableBytes == 0 ? nil : Data(body.readableBytesView)
                )
            )
            var headers = HTTPHeaders()
            if !head.isKeepAlive { headers.add(name: "connection", value: "close") }
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .noContent, headers: headers))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            if !head.isKeepAlive { context.close(promise: nil) }
        }
    }
}
