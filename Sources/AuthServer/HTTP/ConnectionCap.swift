import AuthCore
import HummingbirdCore
import NIOCore
import Synchronization

/// The server's `--max-connections`, held so that slow clients cannot fill it: at the cap,
/// a new connection is still accepted when some connection has been waiting for a request
/// head for at least ``grace`` (a client that opened a connection, or finished a request,
/// and has not sent a whole head since), and the one that has waited longest is closed to
/// make room. When none has, the server stops accepting and looks again every ``grace``,
/// and whenever a connection closes. So slowloris clients from any number of addresses
/// cannot shut out clients that send a request at once; a client that has just connected,
/// or is inside a request, is never the one closed.
///
/// The cap is soft by the connections accepted in one batch while the last waiting ones
/// began their requests (or accepted by a read left pending while one could be closed):
/// those are served, and the cap heals itself: while more connections are open than the
/// limit, a connection that has waited ``grace`` for its next head is closed, with or
/// without a new connection asking for room.
///
/// ```swift
/// let cap = ConnectionCap(limit: 1_000)
/// configuration.availableConnectionsDelegate = cap.delegate   // and cap.listens(on: serverChannel)
/// // … each connection's RequestHeadTimeoutHandler reports to `cap` …
/// ```
public final class ConnectionCap: Sendable {
    /// Connections open at once before the longest-waiting one is closed for a new one.
    public let limit: Int
    /// How long a connection must have waited for a head before it may be closed: a client
    /// that just connected, or just had its answer, sends its head well within it.
    public let grace: TimeAmount
    /// Where the open and waiting connections and the evictions are counted.
    public let metrics: AuthMetrics
    private struct State {
        var open = 0
        /// The connections waiting for a request head, with since when.
        var waiting: [ObjectIdentifier: (since: NIODeadline, channel: any Channel)] = [:]
        /// The listening channel, once it listens.
        var server: (any Channel)?
        /// Whether a look again is scheduled while the accept loop is stopped.
        var retryScheduled = false
    }
    private let state = Mutex(State())

    /// Creates the cap.
    public init(limit: Int, grace: TimeAmount = .seconds(1), metrics: AuthMetrics = AuthMetrics()) {
        self.limit = limit
        self.grace = grace
        self.metrics = metrics
    }

    /// The delegate the server's accept loop asks.
    public var delegate: some AvailableConnectionsDelegate { Delegate(cap: self) }

    /// Remembers the listening channel, whose accept loop a stopped cap starts again.
    public func listens(on server: any Channel) {
        state.withLock { $0.server = server }
    }

    /// Whether the accept loop may take another connection; when not, a look again is
    /// scheduled after ``grace`` (a waiting connection may have become one to close).
    func isAccepting() -> Bool {
        let now = NIODeadline.now()
        let retry = state.withLock { state -> (any Channel)?? in
            if state.open < limit || Self.oldest(in: state, closableAt: now - grace) != nil { return .none }
            guard !state.retryScheduled else { return .some(nil) }
            state.retryScheduled = state.server != nil
            return .some(state.server)
        }
        guard let retry else { return true }
        if let server = retry {
            server.eventLoop.scheduleTask(in: grace) { [self] in
                state.withLock { $0.retryScheduled = false }
                // A read asks the accept loop's handler again.
                server.read()
            }
        }
        return false
    }

    /// Counts a new connection; past the limit, closes the connection that has waited
    /// longest for a request head, if one has waited ``grace``.
    func opened() {
        let now = NIODeadline.now()
        evict(
            change { state -> [any Channel] in
                state.open += 1
                return state.open > limit ? Self.takeClosable(from: &state, count: 1, now: now - grace) : []
            })
    }

    /// Forgets a closed connection.
    func closed() {
        change { $0.open -= 1 }
    }

    /// `channel` waits for a request head from now on; past the limit, it is closed once it
    /// has waited ``grace`` (unless it has had a head, or another was closed, by then).
    func waits(_ channel: any Channel) {
        let now = NIODeadline.now()
        let over = change { state -> Bool in
            state.waiting[ObjectIdentifier(channel)] = (now, channel)
            return state.open > limit
        }
        if over {
            channel.eventLoop.scheduleTask(in: grace) { [self] in trim() }
        }
    }

    /// While more connections are open than the limit, closes those that have waited
    /// ``grace`` for a head, longest first.
    func trim() {
        let now = NIODeadline.now()
        evict(change { state in Self.takeClosable(from: &state, count: state.open - limit, now: now - grace) })
    }

    /// Up to `count` connections that have waited for a head since `deadline` or before,
    /// longest first, no longer counted as waiting.
    private static func takeClosable(from state: inout State, count: Int, now deadline: NIODeadline) -> [any Channel] {
        var taken: [any Channel] = []
        while taken.count < count, let id = oldest(in: state, closableAt: deadline), let entry = state.waiting.removeValue(forKey: id) {
            taken.append(entry.channel)
        }
        return taken
    }

    /// Closes `channels`, each counted as evicted, on its loop's next turn: not inside the
    /// accept loop's call, where a close would call back into the accept loop's handler
    /// while it is still in this one.
    private func evict(_ channels: [any Channel]) {
        for channel in channels {
            metrics.connectionEvicted()
            channel.eventLoop.execute { channel.close(promise: nil) }
        }
    }

    /// `channel` has a request head (or is gone): it is no longer one to close.
    func stopsWaiting(_ channel: any Channel) {
        change { _ = $0.waiting.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// The connection that has waited longest, if it has waited since `deadline` or before.
    private static func oldest(in state: State, closableAt deadline: NIODeadline) -> ObjectIdentifier? {
        guard let (id, entry) = state.waiting.min(by: { $0.value.since < $1.value.since }), entry.since <= deadline else { return nil }
        return id
    }

    /// Changes the state and records the gauges under the same lock, so that they are
    /// recorded in the order of the changes.
    private func change<T>(_ body: (inout State) -> T) -> T {
        state.withLock { state in
            let result = body(&state)
            metrics.connections(open: state.open, waitingForHead: state.waiting.count)
            return result
        }
    }

    private struct Delegate: AvailableConnectionsDelegate {
        let cap: ConnectionCap

        mutating func connectionOpened() { cap.opened() }
        mutating func connectionClosed() { cap.closed() }
        func isAcceptingNewConnections() -> Bool { cap.isAccepting() }
    }
}
