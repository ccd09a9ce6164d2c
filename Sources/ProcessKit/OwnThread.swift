import Foundation

/// Runs blocking work (a `waitpid`, blocking socket I/O, `initdb`) on a new thread and
/// awaits its result, so that no thread of Swift's cooperative pool waits meanwhile. Not on
/// Dispatch's global queue: on Linux its threads also run Swift's tasks.
///
/// ```swift
/// let status = await OwnThread.run { child.wait() }
/// ```
public enum OwnThread {
    /// `body`'s result, computed on a thread of its own.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }

    /// `body`'s result or error, computed on a thread of its own.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }
}
