import Hummingbird

/// A total deadline for a request's body, counted from when the router takes the request
/// (its head has arrived): a body that trickles in under the idle timeout still ends there.
/// Without it, a request could carry a password checked long after it was sent — past a
/// reset, say — and hold its connection for as long as it kept a byte coming.
///
/// ``BodyDeadlineMiddleware`` sets it for each request; every body reader here
/// (``JSONRequestBody``, ``FormRequestBody``) reads within it and answers 408
/// `request_timeout`, closing the connection, when it passes.
///
/// ```swift
/// router.add(middleware: BodyDeadlineMiddleware(timeout: .seconds(10)))
/// ```
struct BodyDeadline: Sendable {
    /// When the body must have arrived whole.
    let instant: ContinuousClock.Instant
    /// The timeout, for the error's description.
    let timeout: Duration

    /// The deadline of the request being handled, set by ``BodyDeadlineMiddleware``.
    @TaskLocal static var current: BodyDeadline?

    /// Runs `read` (a body's collection) within the current deadline, if any.
    /// - Throws: ``HTTPRequestError/bodyTimedOut(seconds:)`` when the deadline passes first.
    static func within<T: Sendable>(_ read: @escaping @Sendable () async throws -> T) async throws -> T {
        guard let deadline = current else { return try await read() }
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await read() }
            group.addTask {
                try await Task.sleep(until: deadline.instant, clock: .continuous)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw HTTPRequestError.bodyTimedOut(seconds: Int(deadline.timeout.components.seconds))
            }
            return value
        }
    }
}

/// Starts each request's ``BodyDeadline``.
struct BodyDeadlineMiddleware<Context: RequestContext>: RouterMiddleware {
    /// How long a body may take to arrive whole.
    let timeout: Duration

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await BodyDeadline.$current.withValue(BodyDeadline(instant: .now + timeout, timeout: timeout)) {
            try await next(request, context)
        }
    }
}
