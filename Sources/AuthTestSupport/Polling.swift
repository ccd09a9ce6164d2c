/// Waiting for a condition another process or task brings about (a replica's replay, a
/// lag watch's next measurement): the limit bounds a failure, never a pass, since a
/// condition that holds ends the wait at once.
///
/// ```swift
/// try await Polling.until("the replica is within its lag", within: .seconds(30)) { storage.staleReads != nil }
/// ```
public enum Polling {
    /// `what` did not come about within the limit.
    public struct TimedOut: Error, CustomStringConvertible {
        public let what: String
        public var description: String { "timed out waiting until \(what)" }
    }

    /// Returns once `condition` holds, asking it every `interval`.
    /// - Throws: ``TimedOut`` when it still does not hold after `limit`; what `condition` throws.
    public static func until(
        _ what: String, every interval: Duration = .milliseconds(50), within limit: Duration = .seconds(30),
        _ condition: () async throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + limit
        while try await !condition() {
            guard ContinuousClock.now < deadline else { throw TimedOut(what: what) }
            try await Task.sleep(for: interval)
        }
    }
}
