import ArgumentParser
import AuthCore

/// How long `serve` keeps audit events, login-attempt counters and ended sessions, and how
/// often it deletes what is older.
struct RetentionOptions: ParsableArguments {
    private static let defaults = RetentionPolicy()

    @Option(name: .customLong("audit-retention"), help: "Seconds audit events are kept.")
    var auditEvents = defaults.auditEvents

    @Option(name: .customLong("counter-retention"), help: "Seconds a login-attempt counter is kept after its window starts.")
    var loginCounters = defaults.loginCounters

    @Option(
        name: .customLong("session-retention"),
        help: "Seconds expired refresh tokens, and ended or revoked sessions, are kept before they are deleted."
    )
    var endedSessions = defaults.endedSessions

    @Option(name: .customLong("retention-interval"), help: "Seconds between retention runs.")
    var interval = 60

    func validate() throws {
        guard auditEvents > 0, loginCounters > 0, endedSessions > 0, interval > 0 else {
            throw ValidationError("--audit-retention, --counter-retention, --session-retention and --retention-interval must be positive.")
        }
    }

    /// The policy these options give.
    var policy: RetentionPolicy {
        RetentionPolicy(auditEvents: auditEvents, loginCounters: loginCounters, endedSessions: endedSessions)
    }
}
