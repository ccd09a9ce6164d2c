import Dispatch
import Foundation

/// Runs blocking, CPU-heavy work (password hashing) on dedicated threads, never on the
/// caller's executor, with at most ``width`` jobs at once and at most ``queueLimit``
/// jobs waiting. The threads run at a lower CPU priority (nice ``niceness``) so that a
/// saturated pool does not delay the event loops answering other requests. A job that finds the queue full fails at once with
/// ``AuthError/serviceUnavailable(_:retryAfter:)`` instead of piling up memory.
///
/// ```swift
/// let pool = BlockingWorkPool(width: 2, queueLimit: 64)
/// let phc = try await pool.run { try hasher.hash(password) }
/// ```
public final class BlockingWorkPool: Sendable {
    /// How many jobs run at once.
    public let width: Int
    /// How many jobs may wait for a free slot.
    public let queueLimit: Int
    /// The nice value of the pool's threads (0 to 19; higher yields the CPU sooner).
    public let niceness: Int32
    private let threads: WorkerThreads
    private let gate: Gate

    /// Work waiting for a thread before more is refused, by default.
    public static let defaultQueueLimit = 64
    /// The threads' nice value by default: the lowest priority, so that requests needing no
    /// hash are answered while every core hashes.
    public static let defaultNiceness: Int32 = 19

    /// Creates a pool running `width` jobs at once (default: the number of cores) with up
    /// to `queueLimit` waiting, on `width` threads at nice value `niceness`.
    public init(
        width: Int = ProcessInfo.processInfo.activeProcessorCount, queueLimit: Int = defaultQueueLimit, niceness: Int32 = defaultNiceness
    ) {
        self.width = max(1, width)
        self.queueLimit = max(0, queueLimit)
        self.niceness = min(max(niceness, 0), 19)
        self.threads = WorkerThreads(count: self.width, niceness: self.niceness, label: "authd-hash")
        self.gate = Gate(width: self.width, queueLimit: self.queueLimit)
    }

    /// Runs `work` on the pool's threads and returns its result.
    /// - Throws: ``AuthError/serviceUnavailable(_:retryAfter:)`` when the queue is full,
    ///   `CancellationError` when the task is cancelled while waiting, or what `work` throws.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await gate.enter()
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, any Error>, Never>) in
            threads.submit {
                continuation.resume(returning: Result { try work() })
            }
        }
        await gate.leave()
        return try result.get()
    }

    /// Jobs running and waiting right now, and jobs finished so far (for metrics and tests).
    public func load() async -> (running: Int, waiting: Int, completed: Int) {
        await gate.load()
    }

    private actor Gate {
        let width: Int
        let queueLimit: Int
        var running = 0
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID: UInt64 = 0
        var completed = 0

        init(width: Int, queueLimit: Int) {
            self.width = width
            self.queueLimit = queueLimit
        }

        func load() -> (running: Int, waiting: Int, completed: Int) { (running, waiters.count, completed) }

        func enter() async throws {
            if running < width {
                running += 1
                return
            }
            guard waiters.count < queueLimit else {
                throw AuthError.serviceUnavailable("The service is busy. Try again shortly.", retryAfter: 1)
            }
            let id = nextID
            nextID += 1
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    waiters.append((id, continuation))
                }
            } onCancel: {
                Task { await self.cancel(id) }
            }
        }

        func leave() {
            completed += 1
            if waiters.isEmpty {
                running -= 1
            } else {
                // The slot passes straight to the next waiter: `running` stays the same.
                waiters.removeFirst().continuation.resume()
            }
        }

        private func cancel(_ id: UInt64) {
            guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
            waiters.remove(at: index).continuation.resume(throwing: CancellationError())
        }
    }
}
