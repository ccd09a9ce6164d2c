import Foundation
import Synchronization

/// The system's clock plus an offset that only grows: what `authd serve --test-clock` runs
/// on, so that a test (a contract's clock step) can move authd's time forward and see
/// tokens expire without waiting. Never for production: whoever may step it decides what
/// has expired.
///
/// ```swift
/// let clock = SteppedClock()
/// clock.advance(by: 901)   // access tokens issued before now are 15 minutes old
/// ```
public final class SteppedClock: WallClock {
    private let offset = Mutex<TimeInterval>(0)

    /// A clock at the system's time.
    public init() {}

    /// The system's time plus every step so far.
    public var now: Date { Date().addingTimeInterval(offset.withLock { $0 }) }

    /// How far it has been stepped, in seconds.
    public var stepped: TimeInterval { offset.withLock { $0 } }

    /// Moves the clock `seconds` forward (a negative or non-finite value is ignored); returns its new time.
    @discardableResult
    public func advance(by seconds: TimeInterval) -> Date {
        guard seconds.isFinite, seconds > 0 else { return now }
        offset.withLock { $0 += seconds }
        return now
    }
}
