/// Where a request came from, for throttling and the audit log: the client's address
/// (the socket peer, or `X-Forwarded-For` from a trusted proxy) and the request id.
///
/// ```swift
/// let origin = RequestOrigin(clientAddress: "203.0.113.9", requestID: "a1b2")
/// let grant = try await service.login(username: "alice", password: "…", origin: origin)
/// ```
public struct RequestOrigin: Sendable, Equatable {
    /// The client's IP address as text, if known.
    public var clientAddress: String?
    /// The id the server gave the request (`X-Request-Id`), if any.
    public var requestID: String?
    /// The client's `User-Agent`, if it sent one (kept with a session it starts).
    public var userAgent: String?

    /// Creates an origin.
    public init(clientAddress: String? = nil, requestID: String? = nil, userAgent: String? = nil) {
        self.clientAddress = clientAddress
        self.requestID = requestID
        self.userAgent = userAgent
    }
}
