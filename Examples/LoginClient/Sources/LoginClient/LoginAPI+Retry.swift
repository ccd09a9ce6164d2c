import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How ``LoginAPI`` copes with a server that is briefly unavailable or slow: a `503` is
/// retried after its `Retry-After` (or ``defaultDelay``; at most ``maxDelay``), up to
/// ``maxAttempts`` attempts in all, and each attempt gives up after ``timeout`` seconds.
///
/// ```swift
/// let api = LoginAPI(baseURL: url, retry: RetryPolicy(maxAttempts: 4, timeout: 5))
/// // In a test: no real waiting (LoginAPIResilienceTests records the waits instead).
/// let tested = LoginAPI(baseURL: url, session: stub.urlSession, retry: RetryPolicy(sleep: { _ in }))
/// ```
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first included (1: never retry).
    public var maxAttempts: Int
    /// The wait before a retry when a `503` has no `Retry-After`.
    public var defaultDelay: TimeInterval
    /// The longest wait the client accepts; a longer `Retry-After` is cut to it.
    public var maxDelay: TimeInterval
    /// Seconds an attempt may take before it fails with ``LoginError/timedOut``.
    public var timeout: TimeInterval
    /// Waits that many seconds (tests pass one that returns at once).
    public var sleep: @Sendable (TimeInterval) async throws -> Void

    /// A policy; the defaults retry a `503` twice, wait at most 30 s, and time out after 15 s.
    public init(
        maxAttempts: Int = 3, defaultDelay: TimeInterval = 1, maxDelay: TimeInterval = 30, timeout: TimeInterval = 15,
        sleep: @escaping @Sendable (TimeInterval) async throws -> Void = { try await Task.sleep(for: .seconds($0)) }
    ) {
        self.maxAttempts = Swift.max(1, maxAttempts)
        self.defaultDelay = defaultDelay
        self.maxDelay = maxDelay
        self.timeout = timeout
        self.sleep = sleep
    }

    /// How long to wait after a `503` whose `Retry-After` says `header` (seconds; an HTTP date counts as the default).
    func delay(retryAfter header: String?) -> TimeInterval {
        let asked = header.flatMap { TimeInterval($0.trimmingCharacters(in: .whitespaces)) } ?? defaultDelay
        return Swift.min(Swift.max(0, asked), maxDelay)
    }
}

extension LoginAPI {
    /// Sends `request` under ``retry``: each attempt with its timeout, a `503` retried after
    /// its `Retry-After` while attempts remain.
    /// - Throws: ``LoginError/serviceUnavailable(retryAfter:)`` when the last attempt was a
    ///   `503`, ``LoginError/timedOut`` when an attempt outlasted the timeout, a `URLError`
    ///   when the server cannot be reached.
    func perform(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        var request = request
        request.timeoutInterval = retry.timeout
        var attempt = 1
        while true {
            let data: Data
            let response: URLResponse
            do {
                (data, response) = try await session.data(for: request)
            } catch let error as URLError where error.code == .timedOut {
                throw LoginError.timedOut
            }
            guard let http = response as? HTTPURLResponse else { throw LoginError.malformedResponse }
            guard http.statusCode == 503 else { return (data, http) }
            let retryAfter = http.value(forHTTPHeaderField: "Retry-After")
            guard attempt < retry.maxAttempts else {
                throw LoginError.serviceUnavailable(retryAfter: retryAfter.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) })
            }
            try await retry.sleep(retry.delay(retryAfter: retryAfter))
            attempt += 1
        }
    }
}
