import AuthCore
import Foundation
import Synchronization

/// The audit log in memory, for tests that need no database.
///
/// ```swift
/// let audit = InMemoryAuditLog()
/// audit.events.last?.kind   // the newest event
/// ```
public final class InMemoryAuditLog: AuditLog {
    private let stored = Mutex<[SecurityEvent]>([])

    /// An empty log.
    public init() {}

    public func record(_ event: SecurityEvent) async throws {
        stored.withLock { $0.append(event) }
    }

    public func recent(limit: Int, usernameKey: String?) async throws -> [SecurityEvent] {
        stored.withLock { events in
            let ids = Set(events.filter { $0.usernameKey == usernameKey }.compactMap(\.userID))
            let chosen = events.filter { usernameKey == nil || $0.usernameKey == usernameKey || $0.userID.map(ids.contains) == true }
            return Array(chosen.reversed().prefix(limit))
        }
    }

    public func forgetUsername(ofUser userID: UUID) async throws {
        stored.withLock { events in
            for index in events.indices where events[index].userID == userID { events[index].usernameKey = nil }
        }
    }

    public func deleteEvents(before date: Date, limit: Int) async throws -> Int {
        stored.withLock { events in
            var deleted = 0
            events.removeAll { event in
                guard deleted < limit, event.at < date else { return false }
                deleted += 1
                return true
            }
            return deleted
        }
    }

    /// Every event, oldest first.
    public var events: [SecurityEvent] { stored.withLock { $0 } }
}
