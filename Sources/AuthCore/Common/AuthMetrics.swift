import CoreMetrics

/// authd's metrics, through swift-metrics with an injected factory (swift-prometheus's in
/// `authd serve`, a no-op by default). The names are what `GET /metrics` shows.
///
/// ```swift
/// let metrics = AuthMetrics(factory: PrometheusMetricsFactory(registry: registry))
/// metrics.login(result: "success")   // authd_logins_total{result="success"} 1
/// ```
public struct AuthMetrics: Sendable {
    /// Where the metrics go.
    public let factory: any MetricsFactory

    /// Metrics sent to `factory`.
    public init(factory: any MetricsFactory = NOOPMetricsHandler.instance) {
        self.factory = factory
    }

    /// One login ended: `success`, `invalid_credentials`, `account_disabled`,
    /// `too_many_attempts`, `invalid_request` or `error`.
    public func login(result: String) {
        Counter(label: "authd_logins_total", dimensions: [("result", result)], factory: factory).increment()
    }

    /// One refresh ended: a ``RefreshRotation/label``, `invalid_request` or `error`.
    public func refresh(result: String) {
        Counter(label: "authd_refreshes_total", dimensions: [("result", result)], factory: factory).increment()
    }

    /// One sign-in with an upstream provider ended (`POST /login/id-token`, the browser's
    /// callback): `success`, `mfa_required`, `link_required`, or the refusal's code.
    public func providerSignIn(provider: String, result: String) {
        Counter(label: "authd_provider_sign_ins_total", dimensions: [("provider", provider), ("result", result)], factory: factory)
            .increment()
    }

    /// A provider's keys were fetched from its `jwks_uri`.
    public func providerKeysFetched(provider: String) {
        Counter(label: "authd_provider_key_fetches_total", dimensions: [("provider", provider)], factory: factory).increment()
    }

    /// A rotated refresh token came back and its family was revoked.
    public func reuseDetected() {
        Counter(label: "authd_refresh_reuse_detected_total", factory: factory).increment()
    }

    /// A login was refused by throttling.
    public func throttled() {
        Counter(label: "authd_throttled_requests_total", factory: factory).increment()
    }

    /// Retention deleted `count` rows of `table` (`audit_events`, `login_failures`, `sessions`).
    public func retentionDeleted(table: String, count: Int) {
        guard count > 0 else { return }
        Counter(label: "authd_retention_deleted_total", dimensions: [("table", table)], factory: factory).increment(by: count)
    }

    /// One attempt to post a message of `kind` ended: `delivered`, `failed` (tried again
    /// later) or `abandoned` (its token expired first).
    public func delivery(kind: String, outcome: String) {
        Counter(label: "authd_deliveries_total", dimensions: [("kind", kind), ("outcome", outcome)], factory: factory).increment()
    }

    /// Messages waiting in the outbox (as last counted by this instance's sender).
    public func deliveriesPending(_ count: Int) {
        Gauge(label: "authd_deliveries_pending", factory: factory).record(count)
    }

    /// A password reset or email verification was asked or used: `reset_requested`,
    /// `reset`, `verification_requested`, `verified`, `invalid_token`, `too_many_attempts`.
    public func recovery(result: String) {
        Counter(label: "authd_account_recovery_total", dimensions: [("result", result)], factory: factory).increment()
    }

    /// One Argon2id computation took `duration`.
    public func hashDuration(_ duration: Duration) {
        let nanoseconds = duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
        Timer(label: "authd_hash_duration_seconds", factory: factory).recordNanoseconds(nanoseconds)
    }

    /// Hash jobs running and waiting for a slot.
    public func hashQueue(running: Int, waiting: Int) {
        Gauge(label: "authd_hash_running", factory: factory).record(running)
        Gauge(label: "authd_hash_queue_depth", factory: factory).record(waiting)
    }

    /// A database operation failed: `unavailable` (down or timed out) or `error`.
    public func databaseError(kind: String) {
        Counter(label: "authd_database_errors_total", dimensions: [("kind", kind)], factory: factory).increment()
    }

    /// A read that may be slightly stale was answered by a read replica (`replica`), or by
    /// the primary (`primary`) because the replica was behind or away.
    public func replicaRead(servedBy: String) {
        Counter(label: "authd_database_replica_reads_total", dimensions: [("served_by", servedBy)], factory: factory).increment()
    }

    /// How far a read replica was behind its primary at its last measurement, in seconds
    /// (-1 when it could not be measured: away, or not replaying).
    public func replicaLag(seconds: Double, replica: String) {
        Gauge(label: "authd_database_replica_lag_seconds", dimensions: [("replica", replica)], factory: factory).record(seconds)
    }

    /// Connections open to the API, and those of them waiting for a request head.
    public func connections(open: Int, waitingForHead: Int) {
        Gauge(label: "authd_connections_open", factory: factory).record(open)
        Gauge(label: "authd_connections_waiting_for_head", factory: factory).record(waitingForHead)
    }

    /// A connection waiting for its request head was closed to admit a new one at the cap.
    public func connectionEvicted() {
        Counter(label: "authd_connections_evicted_total", factory: factory).increment()
    }

    /// An HTTP request was answered; `route` is the matched pattern (never the raw path).
    public func httpRequest(method: String, route: String, status: Int) {
        Counter(
            label: "authd_http_requests_total",
            dimensions: [("method", method), ("route", route), ("status", String(status))],
            factory: factory
        ).increment()
    }
}
