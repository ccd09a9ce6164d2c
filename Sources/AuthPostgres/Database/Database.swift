import AuthCore
import Logging
import NIOCore
import PostgresNIO
import Synchronization
import _ConnectionPoolModule

/// authd's way to PostgreSQL: a connection pool with a deadline on every operation, one
/// translation of availability failures into ``AuthCore/AuthError/serviceUnavailable(_:retryAfter:)``,
/// and a breaker that makes an outage cheap for clients.
///
/// When the database stops answering (a connection error, or an operation still waiting
/// after 250 ms while a direct connection attempt fails), the breaker opens: every operation
/// is answered `service_unavailable` at once, without waiting for a deadline, while one
/// background probe tries a direct connection every 250 ms. When the probe gets through,
/// the pool is replaced by a fresh one (the old pool may be waiting out a long reconnect
/// back-off) and the breaker closes.
///
/// A target with several servers (``DatabaseTarget/hosts``) is a failover set: the pool
/// connects to the first that fits ``DatabaseTarget/sessionAttributes``, and when it stops
/// answering (or, for `read-write`, refuses a write) the probe looks through them again,
/// in order, and the fresh pool goes to the one that fits now: a promoted replica.
///
/// A read replica (``init(replicaOf:target:maximumLag:)``) answers only while it is
/// usable: reachable, replaying, and behind the primary by at most its maximum lag, which
/// a watch measures every ``probeInterval``. Otherwise, and whenever an operation finds it
/// unreachable, the primary answers instead.
///
/// Run ``runPool()`` (``PostgresStorage`` does, as a service of the application) before
/// using the database.
///
/// ```swift
/// let database = Database(configuration: config, logger: logger)
/// let count = try await database.run { client in
///     try await client.query("SELECT count(*) FROM users").collect().count
/// }
/// ```
public final class Database: Sendable {
    /// How long one operation may take, waiting for a connection included.
    public let timeout: Duration
    /// Where queries log (never parameters).
    public let logger: Logger
    /// Where failed operations are counted.
    public let metrics: AuthMetrics
    /// How often the probe tries while the database is down.
    static let probeInterval: Duration = .milliseconds(250)
    /// How long an operation may wait before the probe is asked whether the database is there.
    static let suspectAfter: Duration = .milliseconds(250)

    private let target: DatabaseTarget
    /// For a read replica: the database that answers when it cannot, and how far behind it
    /// may be.
    private let replicaOf: (primary: Database, maximumLag: Duration)?
    /// Whether the replica's last lag measurement was within its maximum (false until one is).
    private let lagWithinBound = Atomic<Bool>(false)
    /// The outage probe's TLS, made once; a failure to set it up makes every probe fail.
    private let probeTLS: Result<PostgresConnection.Configuration.TLS, any Error>
    private let state: Mutex<State>
    private let operations = Atomic<Int>(0)
    private let deadlines = Mutex(Deadlines())
    private let probeRequests: AsyncStream<Void>
    private let requestProbe: AsyncStream<Void>.Continuation

    private struct State {
        var client: PostgresClient
        /// Which of the target's hosts `client` connects to.
        var host = 0
        var running: Task<Void, Never>?
        var started = false
        var down = false
    }

    /// A database reached through `configuration` (see ``DatabaseTarget/init(client:)`` for
    /// the outage probe's TLS); nothing connects until ``runPool()`` runs.
    public convenience init(
        configuration: PostgresClient.Configuration, timeout: Duration = .seconds(5),
        logger: Logger = Logger(label: "authd.database"), metrics: AuthMetrics = AuthMetrics()
    ) {
        self.init(target: DatabaseTarget(client: configuration), timeout: timeout, logger: logger, metrics: metrics)
    }

    /// A database reached through `target`: the pool, and the outage probe with the same
    /// TLS; nothing connects until ``runPool()`` runs.
    public convenience init(
        target: DatabaseTarget, timeout: Duration = .seconds(5),
        logger: Logger = Logger(label: "authd.database"), metrics: AuthMetrics = AuthMetrics()
    ) {
        self.init(target: target, replicaOf: nil, timeout: timeout, logger: logger, metrics: metrics)
    }

    /// A read replica of `primary` reached through `target`, used while its lag is at most
    /// `maximumLag` (the primary answers otherwise); it shares the primary's deadline,
    /// logger and metrics. Nothing connects until ``runPool()`` runs.
    public convenience init(replicaOf primary: Database, target: DatabaseTarget, maximumLag: Duration) {
        self.init(
            target: target, replicaOf: (primary, maximumLag), timeout: primary.timeout, logger: primary.logger, metrics: primary.metrics)
    }

    private init(
        target: DatabaseTarget, replicaOf: (primary: Database, maximumLag: Duration)?, timeout: Duration, logger: Logger,
        metrics: AuthMetrics
    ) {
        self.target = target
        self.replicaOf = replicaOf
        self.probeTLS = Result { try target.connectionConfigurationTLS() }
        self.timeout = timeout
        self.logger = logger
        self.metrics = metrics
        self.state = Mutex(State(client: PostgresClient(configuration: target.client(at: target.hosts[0]), backgroundLogger: logger)))
        (probeRequests, requestProbe) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The connection pool in use now (it is replaced after an outage).
    public var client: PostgresClient { state.withLock { $0.client } }

    /// Operations run so far (one round trip each, except a transaction's): what the tests
    /// count to hold a request to the round trips it costs.
    public var operationCount: Int { operations.load(ordering: .relaxed) }

    /// Whether the breaker is closed: operations are tried rather than refused at once.
    public var isAvailable: Bool { state.withLock { !$0.down } }

    /// Runs the connection pool and the outage probe until the task is cancelled: the
    /// database is usable only while this runs.
    public func runPool() async {
        if target.choosesHost, case .reachable(let host) = await reachability(), host != 0 {
            let fresh = PostgresClient(configuration: target.client(at: target.hosts[host]), backgroundLogger: logger)
            state.withLock { state in
                state.client = fresh
                state.host = host
            }
        }
        state.withLock { state in
            let client = state.client
            state.running = Task { [self] in
                self.state.withLock { $0.started = true }
                await client.run()
            }
        }
        let lagWatch = replicaOf.map { replica in Task { [self] in await watchLag(maximum: replica.maximumLag) } }
        await withTaskCancellationHandler {
            for await _ in probeRequests {
                await probeUntilReachable()
            }
        } onCancel: {
            requestProbe.finish()
            lagWatch?.cancel()
        }
        let running = state.withLock { state -> Task<Void, Never>? in
            state.running?.cancel()
            return state.running
        }
        // The pool closes its connections; a shutdown never waits on it for more than 5 s.
        guard let running else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await running.value }
            group.addTask { try? await Task.sleep(for: .seconds(5)) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Returns once ``runPool()`` has started the pool, so that a first operation does not
    /// find it not yet running (PostgresNIO warns about that, and a command's output then
    /// holds the warning), or after as long as an operation may take, if it never does.
    public func waitUntilPoolStarts() async {
        // The pool's task may wait for a thread behind a busy machine's other work (a second
        // was once not enough), and choosing among servers first takes up to a 1 s connection
        // attempt per server.
        let deadline = ContinuousClock.now + timeout + .seconds(target.choosesHost ? target.hosts.count : 0)
        while !state.withLock({ $0.started }), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(1))
        }
        await Task.yield()
    }

    /// Runs `operation` within ``timeout``, or within `deadline` when given (migrations, whose
    /// DDL may take longer than a request's statements).
    /// - Throws: `AuthError.serviceUnavailable` at once while the breaker is open, or when
    ///   the database cannot be reached in time; what `operation` throws otherwise.
    public func run<T: Sendable>(
        deadline: Duration? = nil, _ operation: @escaping @Sendable (PostgresClient) async throws -> T
    ) async throws -> T {
        guard let (primary, _) = replicaOf else { return try await runHere(deadline: deadline, operation) }
        guard isUsableForReads else {
            metrics.replicaRead(servedBy: "primary")
            return try await primary.run(deadline: deadline, operation)
        }
        do {
            let result = try await runHere(deadline: deadline, operation)
            metrics.replicaRead(servedBy: "replica")
            return result
        } catch let error as AuthError where error.code == .serviceUnavailable {
            // A read may be asked twice: the replica went away under it.
            metrics.replicaRead(servedBy: "primary")
            return try await primary.run(deadline: deadline, operation)
        }
    }

    /// Whether this read replica answers reads now: reachable, and its last lag measurement
    /// within the maximum. Always true of a primary.
    public var isUsableForReads: Bool {
        replicaOf == nil || (isAvailable && lagWithinBound.load(ordering: .relaxed))
    }

    /// ``run(deadline:_:)`` on this database's own pool.
    private func runHere<T: Sendable>(
        deadline: Duration?, _ operation: @escaping @Sendable (PostgresClient) async throws -> T
    ) async throws -> T {
        if target.choosesHost, !state.withLock({ $0.started }) {
            // The pool's server is being chosen: the first client may not be the one that runs.
            await waitUntilPoolStarts()
        }
        let (client, down) = state.withLock { ($0.client, $0.down) }
        guard !down else {
            metrics.databaseError(kind: "unavailable")
            throw Self.unavailable
        }
        operations.add(1, ordering: .relaxed)
        do {
            let limit = deadline ?? timeout
            return try await withDeadline(limit) { try await operation(client) }
        } catch let error where Self.isUnavailability(error) {
            if Self.isConnectionFailure(error) { markDown(reason: Self.reason(error)) }
            logger.warning("database unavailable", metadata: ["reason": "\(Self.reason(error))"])
            metrics.databaseError(kind: "unavailable")
            throw Self.unavailable
        } catch let error where Self.isUnstorableText(error) {
            throw Self.unstorableText
        } catch let error where target.sessionAttributes.needsWrites && Self.sqlState(of: error) == "25006" {
            // The server took no write: it is a standby now (a switchover), so another is looked for.
            markDown(reason: "the server is read-only (sqlstate 25006)")
            metrics.databaseError(kind: "unavailable")
            throw Self.unavailable
        } catch {
            if !(error is AuthError) { metrics.databaseError(kind: "error") }
            throw error
        }
    }

    /// The result of `operation`, or `DatabaseUnavailable` once `limit` passes or the breaker
    /// opens, whichever comes first. The operation runs as one task of its own; one watch
    /// task (``watchDeadlines()``) keeps every operation's deadline, so an operation costs no
    /// timer of its own. The caller never waits for an operation that ignores cancellation:
    /// one waiting in a pool that an outage replaced may never end. It is cancelled and left
    /// to end by itself.
    private func withDeadline<T: Sendable>(
        _ limit: Duration, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let race = Race<T>()
        let id = keepDeadline(limit) { race.finish(.failure(DatabaseUnavailable())) }
        defer { deadlines.withLock { _ = $0.entries.removeValue(forKey: id) } }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                race.start(
                    continuation,
                    Task {
                        do {
                            race.finish(.success(try await operation()))
                        } catch {
                            race.finish(.failure(error))
                        }
                    }
                )
            }
        } onCancel: {
            race.finish(.failure(CancellationError()))
        }
    }

    /// The first result resumes the caller; the operation's task is then cancelled.
    private final class Race<T: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<T, any Error>?
            var task: Task<Void, Never>?
            var result: Result<T, any Error>?
        }

        private let state = Mutex(State())

        func start(_ continuation: CheckedContinuation<T, any Error>, _ task: Task<Void, Never>) {
            let early = state.withLock { state -> Result<T, any Error>? in
                state.task = task
                guard let result = state.result else {
                    state.continuation = continuation
                    return nil
                }
                return result
            }
            if let early {
                task.cancel()
                continuation.resume(with: early)
            }
        }

        func finish(_ result: Result<T, any Error>) {
            let (continuation, task) = state.withLock { state -> (CheckedContinuation<T, any Error>?, Task<Void, Never>?) in
                guard state.result == nil else { return (nil, nil) }
                state.result = result
                defer { state.continuation = nil }
                return (state.continuation, state.task)
            }
            task?.cancel()
            continuation?.resume(with: result)
        }
    }

    /// The operations in flight, each with its deadline, and whether the watch task runs.
    private struct Deadlines {
        struct Entry {
            let start: ContinuousClock.Instant
            let limit: Duration
            let giveUp: @Sendable () -> Void
            var suspected = false
        }

        var entries: [Int: Entry] = [:]
        var nextID = 0
        var watching = false
    }

    /// Registers an operation's deadline (`giveUp` answers it unavailable) and starts the
    /// watch task if none runs; returns the key to remove it by.
    private func keepDeadline(_ limit: Duration, giveUp: @escaping @Sendable () -> Void) -> Int {
        let (id, startWatch) = deadlines.withLock { deadlines -> (Int, Bool) in
            let id = deadlines.nextID
            deadlines.nextID &+= 1
            deadlines.entries[id] = .init(start: .now, limit: limit, giveUp: giveUp)
            defer { deadlines.watching = true }
            return (id, !deadlines.watching)
        }
        if startWatch {
            Task { [self] in await watchDeadlines() }
        }
        return id
    }

    /// Every 50 ms while operations are in flight: gives up on each one past its deadline
    /// (on all of them once the breaker is open), and asks the probe to look when one has
    /// waited ``suspectAfter`` or reached its deadline. Ends when none is left.
    private func watchDeadlines() async {
        while true {
            try? await Task.sleep(for: .milliseconds(50))
            let (available, now) = (isAvailable, ContinuousClock.now)
            let (expired, ask, done) = deadlines.withLock { deadlines -> ([@Sendable () -> Void], Bool, Bool) in
                var expired: [@Sendable () -> Void] = []
                var ask = false
                for (id, entry) in deadlines.entries {
                    let elapsed = now - entry.start
                    if !available || elapsed >= entry.limit {
                        expired.append(entry.giveUp)
                        deadlines.entries[id] = nil
                        ask = ask || available
                    } else if elapsed >= Self.suspectAfter, !entry.suspected {
                        deadlines.entries[id]?.suspected = true
                        ask = true
                    }
                }
                if deadlines.entries.isEmpty { deadlines.watching = false }
                return (expired, ask, !deadlines.watching)
            }
            if ask { requestProbe.yield() }
            expired.forEach { $0() }
            if done { return }
        }
    }

    /// Tries a direct connection; while it fails, the breaker is open and it tries again
    /// every ``probeInterval``. Once through, a fresh pool replaces the old one. A connection
    /// that is only slow (the 1 s connect timeout passes, as on a saturated machine) proves
    /// nothing: it does not open the breaker, nor close an open one.
    private func probeUntilReachable() async {
        var failed = false
        while !Task.isCancelled {
            switch await reachability() {
            case .reachable(let host):
                if failed || !isAvailable || host != state.withLock({ $0.host }) { replacePool(host: host) }
                return
            case .unknown:
                if isAvailable { return }
            case .unreachable(let why):
                failed = true
                markDown(reason: "a direct connection failed: \(why)")
            }
            try? await Task.sleep(for: Self.probeInterval)
        }
    }

    private enum Reachability {
        /// The server at this index of the target's hosts answers, and fits.
        case reachable(Int)
        case unknown
        case unreachable(String)
    }

    /// The first of the target's servers that answers a new connection and whose session
    /// fits its ``DatabaseTarget/sessionAttributes`` (``prefer-standby``: a standby on a
    /// first pass, any on a second), in order, as libpq tries them; `unknown` when none fits
    /// and an attempt timed out or was cancelled.
    private func reachability() async -> Reachability {
        let attributes = target.sessionAttributes
        var reasons: [String] = []
        var unknown = false
        for standbyPass in attributes == .preferStandby ? [true, false] : [false] {
            reasons = []
            for (index, host) in target.hosts.enumerated() {
                switch await answer(of: host, attributes: attributes, standbyPass: standbyPass) {
                case .fits: return .reachable(index)
                case .unknown: unknown = true
                case .refused(let why): reasons.append(target.hosts.count > 1 ? "\(host): \(why)" : why)
                }
            }
        }
        return unknown ? .unknown : .unreachable(reasons.joined(separator: "; "))
    }

    /// What one server answers the probe.
    private enum HostAnswer {
        case fits, unknown
        case refused(String)
    }

    /// Whether PostgreSQL at `host` answers a new connection (any answer from the server but
    /// "shutting down", "starting up" or "too many connections" counts) and, when the target
    /// chooses among servers, whether its session fits `attributes`; `unknown` when the
    /// attempt timed out or was cancelled.
    private func answer(of host: DatabaseHost, attributes: TargetSessionAttributes, standbyPass: Bool) async -> HostAnswer {
        var probe: PostgresConnection.Configuration
        let tls: PostgresConnection.Configuration.TLS
        do {
            tls = try probeTLS.get()
        } catch {
            return .refused("cannot set up TLS: \(error)")
        }
        let configuration = target.client
        switch host {
        case .socket(let socket):
            probe = .init(
                unixSocketPath: socket, username: configuration.username, password: configuration.password, database: configuration.database
            )
        case .tcp(let name, let port):
            probe = .init(
                host: name, port: port, username: configuration.username, password: configuration.password,
                database: configuration.database, tls: tls
            )
        }
        probe.options.connectTimeout = .seconds(1)
        do {
            let connection = try await PostgresConnection.connect(configuration: probe, id: 0, logger: logger)
            let fits: Bool
            do {
                fits = target.choosesHost ? try await session(of: connection, fits: attributes, standbyPass: standbyPass) : true
            } catch {
                try? await connection.close()
                throw error
            }
            try? await connection.close()
            return fits ? .fits : .refused("its session is not \(standbyPass ? "a standby's" : attributes.rawValue)")
        } catch let error as PSQLError where error.code == .server {
            return Self.isConnectionFailure(error) ? .refused(Self.reason(error)) : .fits
        } catch let error as PSQLError where error.code == .clientClosedConnection {
            return .unknown
        } catch let error as PSQLError where error.code == .connectionError && Self.isConnectTimeout(error.underlying) {
            // Only slow (a saturated machine, a full accept queue): proves nothing either way.
            return .unknown
        } catch is CancellationError {
            return .unknown
        } catch {
            return .refused(Self.reason(error))
        }
    }

    /// Whether the session on `connection` fits `attributes`.
    private func session(of connection: PostgresConnection, fits attributes: TargetSessionAttributes, standbyPass: Bool) async throws
        -> Bool
    {
        let rows = try await connection.query(
            "SELECT pg_is_in_recovery(), current_setting('transaction_read_only') = 'on'", logger: logger)
        for try await (inRecovery, readOnly) in rows.decode((Bool, Bool).self) {
            return attributes.accepts(inRecovery: inRecovery, readOnly: readOnly, standbyPass: standbyPass)
        }
        return false
    }

    /// Every ``probeInterval`` while the pool runs: how far this replica is behind its
    /// primary, and whether that is within `maximum`. A replica that cannot say (away, not
    /// receiving from a primary, nothing replayed yet) is not within it.
    private func watchLag(maximum: Duration) async {
        let bound = Double(maximum.components.seconds) + Double(maximum.components.attoseconds) / 1e18
        let replica = target.hosts.map(\.description).joined(separator: ",")
        while !Task.isCancelled {
            var lag: Double?
            if isAvailable {
                lag = try? await runHere(deadline: .seconds(1)) { client in
                    var seconds: Double?
                    for try await value in try await client.query(Self.lagQuery).decode(Double?.self) { seconds = value }
                    return seconds
                }
            }
            lagWithinBound.store(lag.map { $0 <= bound } ?? false, ordering: .relaxed)
            metrics.replicaLag(seconds: lag ?? -1, replica: replica)
            try? await Task.sleep(for: Self.probeInterval)
        }
    }

    /// A replica's lag in seconds: none on a server not in recovery (promoted), or one that
    /// has replayed all it received; else the time since the last transaction it replayed
    /// was committed, which overstates the lag after a quiet spell on the primary and so
    /// errs towards the primary. NULL while no WAL receiver runs (not streaming) or nothing
    /// has been received or replayed yet.
    private static let lagQuery: PostgresQuery = """
        SELECT CASE
            WHEN NOT pg_is_in_recovery() THEN 0
            WHEN NOT EXISTS (SELECT 1 FROM pg_stat_wal_receiver) THEN NULL
            WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
            ELSE extract(epoch FROM now() - pg_last_xact_replay_timestamp())
        END::float8
        """

    private static func isConnectTimeout(_ error: (any Error)?) -> Bool {
        if case .connectTimeout? = error as? ChannelError { return true }
        return false
    }

    private func markDown(reason: String) {
        let opened = state.withLock { state -> Bool in
            defer { state.down = true }
            return !state.down
        }
        if opened {
            logger.error("database unreachable: answering service_unavailable until it is back", metadata: ["reason": "\(reason)"])
            requestProbe.yield()
        }
    }

    /// A fresh pool in place of the old one, whose reconnect back-off may be long, connecting
    /// to the target's server `host`, and the breaker closed.
    private func replacePool(host: Int) {
        let fresh = PostgresClient(configuration: target.client(at: target.hosts[host]), backgroundLogger: logger)
        let old = state.withLock { state -> Task<Void, Never>? in
            let old = state.running
            state.client = fresh
            state.host = host
            state.running = Task { await fresh.run() }
            state.down = false
            return old
        }
        old?.cancel()
        logger.notice("database reachable again", metadata: target.hosts.count > 1 ? ["server": "\(target.hosts[host])"] : [:])
    }

    private static let unavailable = AuthError.serviceUnavailable("The database is unavailable. Try again shortly.", retryAfter: 1)
    private static let unstorableText = AuthError.invalidRequest(
        "A value holds a character that cannot be stored (a NUL or an invalid one).")

    /// Whether `error` is PostgreSQL refusing a value's characters (SQLSTATE 22021: a NUL,
    /// which JSON's `\u0000` and a form's `%00` can carry; 22P05): bad input, not a fault.
    static func isUnstorableText(_ error: any Error) -> Bool {
        sqlState(of: error).map { ["22021", "22P05"].contains($0) } ?? false
    }

    /// Whether `error` means "the database cannot be reached now" rather than a bug.
    static func isUnavailability(_ error: any Error) -> Bool {
        if error is DatabaseUnavailable || error is ConnectionPoolError { return true }
        if let transaction = error as? PostgresTransactionError {
            return [transaction.beginError, transaction.closureError, transaction.commitError, transaction.rollbackError]
                .contains { $0.map(isUnavailability) ?? false }
        }
        guard let error = error as? PSQLError else { return false }
        return error.code != .server || isConnectionFailure(error)
    }

    /// Whether `error` says the server itself is gone or refusing: a connection-level
    /// failure, or SQLSTATE 08 (connection exception), 53 (insufficient resources) or
    /// 57P0x (shutting down, cannot connect now).
    static func isConnectionFailure(_ error: any Error) -> Bool {
        if let transaction = error as? PostgresTransactionError {
            return [transaction.beginError, transaction.closureError, transaction.commitError, transaction.rollbackError]
                .contains { $0.map(isConnectionFailure) ?? false }
        }
        guard let error = error as? PSQLError else { return false }
        if [.connectionError, .serverClosedConnection, .clientClosedConnection].contains(error.code) { return true }
        guard error.code == .server, let state = error.serverInfo?[.sqlState] else { return false }
        return state.hasPrefix("08") || state.hasPrefix("53") || state.hasPrefix("57P")
    }

    /// A description of an error without any query parameter or server detail text.
    static func reason(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            let underlying = error.underlying.map { " (\(String(describing: $0).prefix(120)))" } ?? ""
            return "\(error.code)" + (error.serverInfo?[.sqlState].map { " sqlstate=\($0)" } ?? "") + underlying
        }
        return String(describing: type(of: error))
    }

    /// The constraint a server error names (a unique violation's index), if any.
    static func constraint(of error: any Error) -> String? {
        if let transaction = error as? PostgresTransactionError, let inner = transaction.closureError {
            return constraint(of: inner)
        }
        return (error as? PSQLError)?.serverInfo?[.constraintName]
    }

    /// The SQLSTATE of a server error, if `error` is one.
    static func sqlState(of error: any Error) -> String? {
        if let transaction = error as? PostgresTransactionError, let inner = transaction.closureError {
            return sqlState(of: inner)
        }
        return (error as? PSQLError)?.serverInfo?[.sqlState]
    }

    private struct DatabaseUnavailable: Error {}
}
