import Foundation

/// How long authd keeps what piles up, and how much it deletes at once: audit events,
/// login-attempt counters, and sessions (refresh-token families and their tokens) that
/// ended. Each period is in seconds, counted from the row's own time.
///
/// ```swift
/// let policy = RetentionPolicy(auditEvents: 90 * 86_400, loginCounters: 2 * 86_400, endedSessions: 7 * 86_400)
/// ```
public struct RetentionPolicy: Sendable, Equatable {
    /// Audit events older than this are deleted (default 90 days).
    public var auditEvents: Int
    /// Counters whose window started longer ago than this are deleted (default 2 days,
    /// longer than the longest window, so a username's growing windows survive a pause of
    /// up to a day).
    public var loginCounters: Int
    /// Refresh tokens expired, and sessions ended or revoked, longer ago than this are
    /// deleted (default 7 days).
    public var endedSessions: Int
    /// Rows deleted by one statement.
    public var batchSize: Int
    /// Statements per table in one run: the rest waits for the next run, so a backlog
    /// never holds the database for long.
    public var maxBatchesPerRun: Int

    /// Creates a policy; the defaults are those of docs/01-operating-authd.md ("Retention").
    public init(
        auditEvents: Int = 7_776_000, loginCounters: Int = 172_800, endedSessions: Int = 604_800,
        batchSize: Int = 1_000, maxBatchesPerRun: Int = 50
    ) {
        self.auditEvents = auditEvents
        self.loginCounters = loginCounters
        self.endedSessions = endedSessions
        self.batchSize = batchSize
        self.maxBatchesPerRun = maxBatchesPerRun
    }
}
