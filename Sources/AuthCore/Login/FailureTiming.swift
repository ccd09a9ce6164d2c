import Foundation
import Synchronization

/// How long a password verification takes for each set of Argon2id parameters in storage,
/// so that every failed login is answered no sooner than the slowest of them would be.
///
/// A stored hash stronger than the current parameters (kept, never downgraded) takes
/// longer to verify than the dummy hash an unknown username is checked against; without a
/// floor, a wrong password for that account would be told apart from an unknown username
/// by its time. ``LoginService`` pads every failure (wrong password or unknown username)
/// to ``floor``, by waiting, not by working: the padding costs no CPU.
///
/// ```swift
/// let timing = FailureTiming()
/// timing.record(.milliseconds(160), for: strong)
/// timing.record(.milliseconds(25), for: .owasp)
/// timing.floor   // 160 ms: every failure takes at least that long
/// try await timing.pad(after: .milliseconds(25), verifications: 1)   // waits 135 ms
/// ```
public final class FailureTiming: Sendable {
    /// How a failure waits out the rest of its floor.
    public typealias Wait = @Sendable (Duration) async throws -> Void

    private let estimates = Mutex<[Argon2idHasher.Parameters: Duration]>([:])
    private let wait: Wait

    /// No estimates: no floor. `wait` is `Task.sleep`; a test passes one that records
    /// what it is asked, so the padding is checked by its amount, not by a stopwatch.
    public init(wait: @escaping Wait = { try await Task.sleep(for: $0) }) {
        self.wait = wait
    }

    /// Folds one measured verification into the estimate for `parameters`: a moving
    /// average, so one slow moment of the machine moves it only a fifth of the way.
    public func record(_ took: Duration, for parameters: Argon2idHasher.Parameters) {
        estimates.withLock { estimates in
            estimates[parameters] = estimates[parameters].map { $0 * 0.8 + took * 0.2 } ?? took
        }
    }

    /// The estimated time of the slowest verification in storage (zero before any).
    public var floor: Duration {
        estimates.withLock { $0.values.max() ?? .zero }
    }

    /// The estimate for one parameter set, nil before it was measured.
    public func estimate(for parameters: Argon2idHasher.Parameters) -> Duration? {
        estimates.withLock { $0[parameters] }
    }

    /// Waits until a failure whose `verifications` took `took` has taken as long as that
    /// many verifications of the slowest stored hash; nothing when it already has.
    public func pad(after took: Duration, verifications: Int) async throws {
        let floor = self.floor * verifications
        if took < floor { try await wait(floor - took) }
    }
}
