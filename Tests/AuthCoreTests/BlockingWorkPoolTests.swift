import AuthCore
import Foundation
import Synchronization
import Testing

@Suite struct BlockingWorkPoolTests {
    @Test func runsAtMostWidthJobsAtOnce() async throws {
        let pool = BlockingWorkPool(width: 2, queueLimit: 100)
        final class Peak: Sendable { let state = Mutex((running: 0, peak: 0)) }
        let peak = Peak()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    try await pool.run {
                        peak.state.withLock {
                            $0.running += 1
                            $0.peak = max($0.peak, $0.running)
                        }
                        // Hold the slot until a second job runs beside it (or 5 s pass), so
                        // the test does not depend on how a loaded machine schedules threads.
                        let deadline = Date().addingTimeInterval(5)
                        while peak.state.withLock({ $0.peak }) < 2, Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
                        Thread.sleep(forTimeInterval: 0.005)
                        peak.state.withLock { $0.running -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(peak.state.withLock { $0.peak } == 2)
        #expect(await pool.load().completed == 12)
    }

    @Test func refusesWorkWhenTheQueueIsFull() async throws {
        let pool = BlockingWorkPool(width: 1, queueLimit: 1)
        let release = DispatchSemaphore(value: 0)
        let blocker = Task { try await pool.run { release.wait() } }
        while await pool.load().running < 1 { await Task.yield() }
        let waiter = Task { try await pool.run { 42 } }
        while await pool.load().waiting < 1 { await Task.yield() }

        await #expect(throws: AuthError.serviceUnavailable("The service is busy. Try again shortly.", retryAfter: 1)) {
            try await pool.run { 0 }
        }
        release.signal()
        try await blocker.value
        #expect(try await waiter.value == 42)
    }

    @Test func propagatesErrorsFromTheJob() async {
        struct Boom: Error {}
        let pool = BlockingWorkPool(width: 1, queueLimit: 0)
        await #expect(throws: Boom.self) { try await pool.run { throw Boom() } }
        // The slot was released: the next job runs.
        #expect((try? await pool.run { 1 }) == 1)
    }

    @Test func runsOffTheCallersThread() async throws {
        let pool = BlockingWorkPool(width: 1)
        let isMain = try await pool.run { Thread.isMainThread }
        #expect(!isMain)
    }

    #if os(Linux)
        @Test func jobsRunAtTheLowerPriorityAndTheCallerKeepsItsOwn() async throws {
            let callerBefore = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
            let pool = BlockingWorkPool(width: 2, niceness: 15)
            let inside = try await pool.run { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }
            #expect(inside == 15)
            #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) == callerBefore)
        }
    #endif
}
