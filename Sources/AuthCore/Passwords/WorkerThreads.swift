import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A fixed set of threads running submitted jobs in order, at a lowered CPU priority
/// (a higher nice value) so that event loops sharing the cores are scheduled first.
///
/// The threads stop once the value is released and the jobs already submitted have run.
///
/// ```swift
/// let threads = WorkerThreads(count: 2, niceness: 19, label: "hashing")
/// threads.submit { expensiveWork() }
/// ```
final class WorkerThreads: Sendable {
    private final class Shared: Sendable {
        let jobs = Mutex<(pending: [@Sendable () -> Void], stopping: Bool)>(([], false))
        let available = DispatchSemaphore(value: 0)

        /// The next job, or nil when the threads are stopping and nothing is left.
        func next() -> (@Sendable () -> Void)? {
            available.wait()
            return jobs.withLock { state in state.pending.isEmpty ? nil : state.pending.removeFirst() }
        }
    }

    private let shared = Shared()
    private let count: Int

    /// Starts `count` threads named `label` with the given nice value (0 leaves it as is).
    init(count: Int, niceness: Int32, label: String) {
        self.count = count
        for index in 0..<count {
            let shared = self.shared
            let name = "\(label)-\(index)"
            Thread {
                Self.name(name)
                Self.lowerPriority(niceness)
                while let job = shared.next() { job() }
            }.start()
        }
    }

    deinit {
        shared.jobs.withLock { $0.stopping = true }
        for _ in 0..<count { shared.available.signal() }
    }

    /// Runs `job` on one of the threads.
    func submit(_ job: @escaping @Sendable () -> Void) {
        shared.jobs.withLock { $0.pending.append(job) }
        shared.available.signal()
    }

    /// Names the calling thread, as `ps -L` and `/proc/PID/task/*/stat` show it (at most 15
    /// bytes on Linux), from the thread itself, not through `Thread.name`: Foundation's setter
    /// names the thread only once the starting thread has stored its handle, which under load
    /// (the new thread running first) it had not, and the thread stayed unnamed.
    private static func name(_ name: String) {
        #if os(Linux)
            // glibc's pthread_setname_np, which is not in Swift's Glibc module, names the calling
            // thread with prctl. Writing /proc/thread-self/comm instead left the thread's /proc
            // entries for whoever reaps the process to tear down, and with several processes
            // ending at once (the contracts' state commands) those reaps spun in the kernel
            // (docs/08-performance.md).
            guard let symbol = setName else { return }
            let function = unsafeBitCast(symbol, to: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32).self)
            _ = String(decoding: name.utf8.prefix(15), as: UTF8.self).withCString { function(pthread_self(), $0) }
        #else
            _ = pthread_setname_np(name)
        #endif
    }

    #if os(Linux)
        private nonisolated(unsafe) static let setName = dlsym(dlopen(nil, RTLD_NOW), "pthread_setname_np")
    #endif

    /// Raises the calling thread's nice value. Linux keeps a nice value per thread, and
    /// `who` 0 names the calling one.
    private static func lowerPriority(_ niceness: Int32) {
        guard niceness > 0 else { return }
        #if os(Linux)
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
        #else
            _ = setpriority(PRIO_DARWIN_THREAD, 0, PRIO_DARWIN_BG)
        #endif
    }
}
