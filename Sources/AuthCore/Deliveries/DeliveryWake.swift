import Synchronization

/// Wakes the sender when this instance queues a message, so it goes out at once instead
/// of at the next poll. Signals while the sender is busy fold into one.
///
/// ```swift
/// let wake = DeliveryWake()
/// wake.signal()                                   // after queueing
/// await wake.wait(atMost: .seconds(1))           // in the sender: returns at once
/// ```
public final class DeliveryWake: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// A wake with no signal pending.
    public init() {}

    /// Wakes the waiting sender, or makes its next wait return at once.
    public func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns at the next signal (or a pending one), after `duration`, or when the task is
    /// cancelled, whichever comes first. One sender waits at a time.
    public func wait(atMost duration: Duration) async {
        let timer = Task { [weak self] in
            // A timer cancelled because a signal came first must not leave one pending.
            guard (try? await Task.sleep(for: duration)) != nil else { return }
            self?.signal()
        }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.pending {
                        state.pending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            signal()
        }
    }
}
