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
    @Test(.timeLimit(.minutes(5))) func anOperationThatNeverEndsIsAnsweredUnavailableAtTheDeadline() async throws {
        let database = Database(
            configuration: try await TestCluster.newDatabase().configuration, timeout: .seconds(1), logger: TestCluster.logger)
        let stuck = Stuck()
        let start = ContinuousClock.now
        await #expect(throws: AuthError.self) {
            try await database.run { _ in await stuck.wait() }
        }
        // Without the deadline the call never returns; the bound is loose because the
        // suite runs in parallel on a loaded machine (4.6 s was seen with a 1 s deadline).
        #expect(ContinuousClock.now - start < .seconds(120))
        stuck.release()
    }

    /// A pool whose task starts late, as on a machine busy with other work, is waited for:
    /// a first operation must not find it not yet running (PostgresNIO then logs a warning,
    /// which a CLI command printed among its output), whatever the delay within an
    /// operation's deadline.
    @Test func aPoolThatStartsLateIsWaitedFor() async throws {
        let database = Database(
            configuration: try await TestCluster.newDatabase().configuration, timeout: .seconds(30), logger: TestCluster.logger)
        let delay = Duration.seconds(2)
        let start = ContinuousClock.now
        let pool = Task {
            try await Task.sleep(for: delay)
            await database.runPool()
        }
        defer { pool.cancel() }
        await database.waitUntilPoolStarts()
        #expect(ContinuousClock.now - start >= delay)
        let one = try await database.run { client in
            try await client.query("SELECT 1").decode(Int.self).first { _ in true }
        }
        #expect(one == 1)
    }

    /// A server that accepts TCP connections too slowly (its accept queue is full, so the
    /// kernel drops new handshakes) is not a server that is down: the probe's connect timing
    /// out leaves the breaker closed, so a saturated machine does not turn into 503s.
    @Test func aProbeThatOnlyTimesOutLeavesTheBreakerClosed() async throws {
        let listener = try FullBacklogListener()
        defer { listener.close() }
        let configuration = PostgresClient.Configuration(
            host: "127.0.0.1", port: listener.port, username: "nobody", password: nil, database: "none", tls: .disable
        )
        let database = Database(configuration: configuration, timeout: .seconds(3), logger: TestCluster.logger)
        let pool = Task { await database.runPool() }
        defer { pool.cancel() }
        await #expect(throws: AuthError.self) {
            try await database.run { client in try await client.query("SELECT 1") }
        }
        #expect(database.isAvailable)
    }

    /// A loopback listener whose one-place accept queue is filled by a connection nobody
    /// accepts: further connection attempts hang until their timeout.
    final class FullBacklogListener: Sendable {
        let port: Int
        private let sockets: [Int32]

        init() throws {
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                    bind(server, generic, length) == 0 && listen(server, 0) == 0 && getsockname(server, generic, &length) == 0
                }
            }
            try #require(bound)
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            let connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, length) == 0 }
            }
            try #require(connected)
            port = Int(UInt16(bigEndian: address.sin_port))
            sockets = [server, filler]
        }

        func close() {
            for socket in sockets { _ = Glibc.close(socket) }
        }
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
            continuation.withLock {
                $0?.resume()
                $0 = nil
            }
        }
    }
}
