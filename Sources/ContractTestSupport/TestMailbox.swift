import Foundation
import Hummingbird
import Synchronization

/// A delivery URL for tests of authd's outbox: `POST /deliveries` records each message
/// (headers and body) and answers 204; or 503 while it is told to refuse; or nothing while
/// it is told to hang (until it is told otherwise, then 503). Served by ``EphemeralServer``.
///
/// ```swift
/// let mailbox = TestMailbox()
/// try await EphemeralServer.withRunning(mailbox.router()) { base in
///     // start authd with --delivery-url \(base)/deliveries, ask for a reset, then:
///     let message = try await mailbox.next(within: .seconds(5))
/// }
/// ```
public final class TestMailbox: Sendable {
    /// One message received.
    public struct Message: Sendable {
        /// Header names lower-cased, values as sent.
        public let headers: [String: String]
        /// The body.
        public let body: Data

        /// The body as a JSON object (empty when it is not one).
        public var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
        }
    }

    private struct State {
        var messages: [Message] = []
        var taken = 0
        var refusing = false
        var hanging = false
        var attempts = 0
    }

    private let state = Mutex(State())

    /// An empty mailbox that accepts.
    public init() {}

    /// Makes the mailbox answer 503 (and record nothing) while `refusing`.
    public func refuse(_ refusing: Bool) {
        state.withLock { $0.refusing = refusing }
    }

    /// Makes the mailbox hold each request unanswered while `hanging` (a receiver that
    /// stopped mid-request).
    public func hang(_ hanging: Bool) {
        state.withLock { $0.hanging = hanging }
    }

    /// Requests that reached the mailbox, refused or not.
    public var attempts: Int { state.withLock { $0.attempts } }

    /// Every message accepted so far.
    public var messages: [Message] { state.withLock { $0.messages } }

    /// The messages without repeats: the first of each `delivery_id`. A delivery is sent at
    /// least once (a retry after a timeout may arrive twice, as on a loaded machine), and a
    /// mailer deduplicates by its id, as this does.
    public var distinctMessages: [Message] {
        var seen = Set<String>()
        return messages.filter { message in
            guard let id = message.json["delivery_id"].map({ "\($0)" }) else { return true }
            return seen.insert(id).inserted
        }
    }

    /// The router to serve.
    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.post("/deliveries") { [self] request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            state.withLock { $0.attempts += 1 }
            var held = false
            while state.withLock({ $0.hanging }) {
                held = true
                try await Task.sleep(for: .milliseconds(50))
            }
            let accepted = state.withLock { state -> Bool in
                guard !state.refusing, !held else { return false }
                state.messages.append(Message(headers: headers, body: Data(buffer: body)))
                return true
            }
            return Response(status: accepted ? .noContent : .serviceUnavailable)
        }
        return router
    }

    /// The next message not yet taken, waiting for it up to `within`.
    /// - Throws: ``TestMailboxTimeout`` when none comes.
    public func next(within: Duration) async throws -> Message {
        let deadline = ContinuousClock.now + within
        while ContinuousClock.now < deadline {
            let message = state.withLock { state -> Message? in
                guard state.taken < state.messages.count else { return nil }
                state.taken += 1
                return state.messages[state.taken - 1]
            }
            if let message { return message }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestMailboxTimeout()
    }
}

/// No message reached the mailbox in time.
public struct TestMailboxTimeout: Error, CustomStringConvertible {
    /// The error.
    public init() {}

    public var description: String { "no message reached the mailbox in time" }
}
