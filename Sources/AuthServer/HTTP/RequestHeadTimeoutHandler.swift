import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a connection that does not deliver a complete request head in time: counted from
/// when it opened, and again from each answer once nothing is outstanding. So a client that
/// opens connections and trickles header bytes (slowloris), or holds an idle keep-alive
/// connection, gives its slot back after `timeout`; a request being answered is never cut.
///
/// It sits after the HTTP decoder, which hands on a head only once it is complete. While
/// its timer runs, the connection is one ``ConnectionCap`` may close for a new one.
///
/// ```swift
/// .http1(configuration: .init(additionalChannelHandlers: [RequestHeadTimeoutHandler(timeout: .seconds(10), cap: cap)]))
/// ```
final class RequestHeadTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let timeout: TimeAmount
    private let cap: ConnectionCap?
    private var timer: Scheduled<Void>?
    /// Requests whose head came and whose answer has not ended yet.
    private var outstanding = 0

    init(timeout: TimeAmount, cap: ConnectionCap? = nil) {
        self.timeout = timeout
        self.cap = cap
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            outstanding += 1
            disarm(context)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let ends = if case .end = unwrapOutboundIn(data) { true } else { false }
        context.write(data, promise: promise)
        if ends {
            outstanding = max(0, outstanding - 1)
            if outstanding == 0 { arm(context) }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm(context)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm(context)
    }

    private func arm(_ context: ChannelHandlerContext) {
        timer?.cancel()
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: timeout) {
            loopBound.value.close(promise: nil)
        }
        cap?.waits(context.channel)
    }

    private func disarm(_ context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        cap?.stopsWaiting(context.channel)
    }
}

@available(*, unavailable)
extension RequestHeadTimeoutHandler: Sendable {}
