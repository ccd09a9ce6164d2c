import AuthCore
import AuthPostgres
import AuthTestSupport
import Foundation
import PostgresNIO
import Synchronization
import Testing

/// The deadline of `Database.run` holds even for an operation that ignores cancellation
/// (as one waiting in a connection pool that an outage replaced can).
@Suite struct DatabaseDeadlineTests {
    @Test func anOperationThatNeverEndsIsAnsweredUnavailableAtTheDeadline() async throws {
        let database = Database(configuration: try await TestCluster.newDatabase().configuration, timeout: .seconds(1), logger: TestCluster.logger)
        let stuck = Stuck()
        let start = ContinuousClock.now
        await #expect(throws: AuthError.self) {
            try await database.run { _ in await stuck.wait() }
        }
        #expect(ContinuousClock.now - start < .seconds(3))
        stuck.release()
    }

    /// A wait that cancellation does not end.
    final class Stuck: Sendable {
        private let continuation = Mutex<CheckedContinuation<Void, Never>?>(nil)
        private let released = Mutex(false)

        func wait() async {
            await withCheckedContinuation { continuation in
                let done = released.withLock { $0 }
                if done { continuation.resume() } else { self.continuation.withLock { $0 = continuation } }
            }
        }

        func release() {
            released.withLock { $0 = true }
            continuation.withLock { $0?.resume(); $0 = nil }
        }
    }
}
