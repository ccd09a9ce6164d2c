import AsyncHTTPClient
import NIOCore
import NIOPosix

extension HTTPClient {
    /// The client contract verification uses: a refused connection fails at once instead of
    /// being retried until the request deadline, so an unreachable provider is reported
    /// quickly; and a connection left idle is closed by the client after 4 s, before a server
    /// closes it (authd after 10 s without a request head, Node after 5 s), so that a request
    /// after a pause never goes out on a connection the server is closing ("I/O on closed
    /// channel"). Lives as long as the process, like `HTTPClient.shared`.
    ///
    /// ```swift
    /// let transport = HTTPTransport(baseURL: url, client: .contracts)
    /// ```
    public static let contracts: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(5)
        configuration.connectionPool.idleTimeout = .seconds(4)
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        return HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    }()
}
