import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Gives requests the HTTP parser rejects (a header or path over 80 KiB, over 1,000 header
/// fields, a NUL in the method) authd's JSON error shape instead of Hummingbird's bare,
/// empty `400`.
///
/// It sits in the connection's pipeline after the decoder: it notes the parser error
/// and passes it on, so Hummingbird answers and closes the connection as it always does;
/// when that answer (`400`, `Content-Length: 0`, `Connection: close`) comes back out, it
/// is rewritten to `400 invalid_request`, or `431 request_header_fields_too_large` for
/// oversized heads, with a JSON body. Nothing else is touched.
///
/// ```swift
/// Application(router: router, server: .http1(configuration: .init(
///     additionalChannelHandlers: [ParserErrorResponseHandler()])))
/// ```
final class ParserErrorResponseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var parserError: HTTPParserError?

    init() {}

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if parserError == nil, let error = error as? HTTPParserError { parserError = error }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard let error = parserError, case .head(var head) = unwrapOutboundIn(data), head.status == .badRequest,
            head.headerFields[.contentLength] == "0", head.headerFields[.connection] == "close"
        else {
            context.write(data, promise: promise)
            return
        }
        parserError = nil
        let answer: HTTPRequestError = error == .headerOverflow ? .headersTooLarge : .malformed
        let body = ByteBuffer(bytes: Self.body(answer))
        head.status = answer.status
        head.headerFields[.contentType] = "application/json; charset=utf-8"
        head.headerFields[.cacheControl] = "no-store"
        head.headerFields[.contentLength] = String(body.readableBytes)
        context.write(wrapOutboundOut(.head(head)), promise: promise)
        // Hummingbird's own `.end` follows and flushes.
        context.write(wrapOutboundOut(.body(body)), promise: nil)
    }

    /// The JSON body, encoded as every other error body is.
    private static func body(_ error: HTTPRequestError) -> [UInt8] {
        let encoded = try? JSONEncoder().encode(ErrorBody(code: error.code, description: error.description))
        return Array(encoded ?? Data(#"{"error":"invalid_request"}"#.utf8))
    }
}

@available(*, unavailable)
extension ParserErrorResponseHandler: Sendable {}

extension HTTPServerBuilder {
    /// HTTP/1.1 whose parser-level rejections are JSON errors (``ParserErrorResponseHandler``),
    /// whose connections must deliver each request head within `requestHeadTimeout`
    /// (``RequestHeadTimeoutHandler``) and may not go silent for longer than `idleTimeout`,
    /// and of which one client address may hold no more than `connections` allows
    /// (``ConnectionsPerAddressHandler``); a connection waiting for its request head is one
    /// `cap` may close to admit a new one.
    ///
    /// ```swift
    /// Application(router: router, server: .http1WithJSONErrors())
    /// ```
    static func http1WithJSONErrors(
        requestHeadTimeout: Duration? = nil, idleTimeout: Duration? = nil, connections: ConnectionsPerAddress? = nil,
        cap: ConnectionCap? = nil
    ) -> HTTPServerBuilder {
        .http1(
            configuration: .init(
                additionalChannelHandlers: (connections.map { [ConnectionsPerAddressHandler(connections: $0)] } ?? [])
                    + [ParserErrorResponseHandler()]
                    + (requestHeadTimeout.map { [RequestHeadTimeoutHandler(timeout: TimeAmount($0), cap: cap)] } ?? []),
                idleTimeout: idleTimeout.map(TimeAmount.init)
            )
        )
    }
}
