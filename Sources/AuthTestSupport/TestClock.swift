import AuthCore
import Foundation
import Synchronization

/// A clock tests move by hand.
///
/// ```swift
/// let clock = TestClock(now: Date(timeIntervalSince1970: 1_700_000_000))
/// clock.advance(by: 901)
/// ```
public final class TestClock: WallClock {
    private let current: Mutex<Date>

    /// Starts at `now`.
    public init(now: Date = Date()) {
        self.current = Mutex(now)
    }

    /// The clock's time.
    public var now: Date { current.withLock { $0 } }

    /// Moves the clock forward.
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}
