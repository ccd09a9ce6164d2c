import AsyncHTTPClient
import NIOCore
import NIOPosix

extension HTTPClient {
    /// The client contract verification uses: a refused connection fails at once instead of
    /// being retried until the request deadline, so an unreachable provider is reported
    /// quickly. Lives as long as the process, like `HTTPClient.shared`.
    ///
    /// ```swift
    /// let transport = HTTPTransport(baseURL: url, client: .contracts)
    /// ```
    public static let contracts: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(5)
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        return HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    }()
}
