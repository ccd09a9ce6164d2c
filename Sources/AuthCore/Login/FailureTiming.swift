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
/// ```
public final class FailureTiming: Sendable {
    private let estimates = Mutex<[Argon2idHasher.Parameters: Duration]>([:])

    /// No estimates: no floor.
    public init() {}

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
}
