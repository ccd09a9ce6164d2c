import Foundation
import Synchronization

/// Where a stub's deliveries go: a log, the streams of ``ContractStub/deliveries`` and the
/// handlers of ``ContractStub/onDelivery(_:)``.
final class StubDeliveryHub: Sendable {
    typealias Handler = @Sendable (StubDelivery) -> Void

    private struct State {
        var log: [StubDelivery] = []
        var streams: [UUID: AsyncStream<StubDelivery>.Continuation] = [:]
        var handlers: [Handler] = []
    }

    private let state = Mutex(State())

    deinit {
        // The stub is gone: its streams end.
        state.withLock { state in
            for continuation in state.streams.values { continuation.finish() }
        }
    }

    /// Every delivery so far.
    var log: [StubDelivery] { state.withLock { $0.log } }

    /// A stream of every delivery so far, then each new one.
    func stream() -> AsyncStream<StubDelivery> {
        let (stream, continuation) = AsyncStream.makeStream(of: StubDelivery.self)
        let id = UUID()
        state.withLock { state in
            // Under the lock, so that none is missed or yielded twice between the log and the live ones.
            for delivery in state.log { continuation.yield(delivery) }
            state.streams[id] = continuation
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    func add(_ handler: @escaping Handler) {
        state.withLock { $0.handlers.append(handler) }
    }

    /// Logs `deliveries`, yields them to the streams, then calls the handlers (outside the lock).
    func publish(_ deliveries: [StubDelivery]) {
        guard !deliveries.isEmpty else { return }
        let handlers = state.withLock { state in
            state.log += deliveries
            for continuation in state.streams.values {
                for delivery in deliveries { continuation.yield(delivery) }
            }
            return state.handlers
        }
        for delivery in deliveries {
            for handler in handlers { handler(delivery) }
        }
    }

    /// Forgets the log (streams and handlers stay).
    func clear() {
        state.withLock { $0.log = [] }
    }
}
