import ContractKit
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import WebForms

/// The receiver `contract verify` runs for the deliveries contracts declare (`delivers:`):
/// an HTTP server on 127.0.0.1 and an ephemeral port, started before the provider, that
/// answers 204 to any request and records it in its ``inbox``. Its ``url`` is
/// `{{delivery_url}}` in `contract.yaml`, so the provider can be told where to deliver. It
/// is also the run's OpenID provider (``identityProvider``): its discovery document, keys,
/// authorization endpoint (`GET /authorize`) and token endpoint (`POST /token`) answer as
/// such, and are not deliveries.
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
    /// The run's OpenID provider, whose issuer is ``url``.
    public let identityProvider: RunIdentityProvider
    private let channel: any Channel

    private init(url: String, inbox: DeliveryInbox, identityProvider: RunIdentityProvider, channel: any Channel) {
        self.url = url
        self.inbox = inbox
        self.identityProvider = identityProvider
        self.channel = channel
    }

    /// Starts a receiver on `host:port` (0: a free port).
    public static func start(host: String = "127.0.0.1", port: Int = 0) async throws -> DeliveryReceiver {
        let inbox = DeliveryInbox()
        // Known once the port is: before any connection can ask for it.
        let issuer = NIOLockedValueBox<RunIdentityProvider?>(nil)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(
                        DeliveryReceiverHandler(inbox: inbox, identityProvider: issuer.withLockedValue { $0 }))
                }
            }
            .bind(host: host, port: port)
            .get()
        let bound = channel.localAddress?.port ?? port
        let url = "http://\(host):\(bound)"
        let provider = RunIdentityProvider(issuer: url)
        issuer.withLockedValue { $0 = provider }
        return DeliveryReceiver(url: url, inbox: inbox, identityProvider: provider, channel: channel)
    }

    /// Stops listening.
    public func close() {
        channel.close(promise: nil)
    }
}

/// Reads each request on a connection, records it in the inbox, and answers 204; answers
/// the identity provider's routes instead of recording them.
final class DeliveryReceiverHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let inbox: DeliveryInbox
    private let identityProvider: RunIdentityProvider?
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    /// Bodies beyond this are cut (a delivery is a small message).
    private static let maxBody = 1 << 20

    init(inbox: DeliveryInbox, identityProvider: RunIdentityProvider?) {
        self.inbox = inbox
        self.identityProvider = identityProvider
    }

    /// What the identity provider answers `head` (with `body`), nil for a delivery.
    private func identityProviderAnswer(for head: HTTPRequestHead, body: ByteBuffer) -> RunIdentityProvider.Answer? {
        guard let identityProvider else { return nil }
        let parts = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let query = parts.count > 1 ? FormEncoding.decode(Data(parts[1].utf8)) ?? [] : []
        switch (head.method, parts.first.map(String.init)) {
        case (.GET, "/.well-known/openid-configuration"):
            return RunIdentityProvider.Answer(status: 200, location: nil, json: identityProvider.discoveryDocument)
        case (.GET, "/jwks"): return RunIdentityProvider.Answer(status: 200, location: nil, json: identityProvider.jwks)
        case (.GET, "/authorize"): return identityProvider.authorize(query)
        case (.POST, "/token"):
            let form = FormEncoding.decode(Data(body.readableBytesView)) ?? []
            return identityProvider.token(form, authorization: head.headers.first(name: "authorization"))
        default: return nil
        }
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
            if let answer = identityProviderAnswer(for: head, body: body) {
                let json = ByteBuffer(string: answer.json?.description ?? "")
                var headers = HTTPHeaders([("content-length", String(json.readableBytes)), ("cache-control", "no-store")])
                if answer.json != nil { headers.add(name: "content-type", value: "application/json") }
                if let location = answer.location { headers.add(name: "location", value: location) }
                if !head.isKeepAlive { headers.add(name: "connection", value: "close") }
                let status = HTTPResponseStatus(statusCode: answer.status)
                context.write(
                    wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(json))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                if !head.isKeepAlive { context.close(promise: nil) }
                return
            }
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
