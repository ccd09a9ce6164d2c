import Foundation

/// The audit log of security events, shared by every instance.
///
/// ```swift
/// try await audit.record(SecurityEvent(kind: .loggedOut, at: clock.now, userID: id))
/// let recent = try await audit.recent(limit: 20, usernameKey: "alice")
/// ```
public protocol AuditLog: Sendable {
    /// Appends an event.
    func record(_ event: SecurityEvent) async throws
    /// The newest `limit` events, newest first; only those of `usernameKey` when given
    /// (events of that account's id count too).
    func recent(limit: Int, usernameKey: String?) async throws -> [SecurityEvent]
    /// Removes the username from every event of `userID` (its id stays): what a deleted
    /// account leaves in the log.
    func forgetUsername(ofUser userID: UUID) async throws
    /// Deletes at most `limit` events from before `date`; returns how many it deleted.
    func deleteEvents(before date: Date, limit: Int) async throws -> Int
}
