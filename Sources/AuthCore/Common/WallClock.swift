import Foundation

/// The source of the current time, injected so that expiry can be tested.
///
/// ```swift
/// struct FixedClock: WallClock { var now: Date }
/// let issuer = AccessTokenIssuer(issuer: "authd", lifetime: 900, clock: FixedClock(now: .distantPast))
/// ```
public protocol WallClock: Sendable {
    /// The current time.
    var now: Date { get }
}

/// The system's wall clock.
///
/// ```swift
/// let now = SystemClock().now
/// ```
public struct SystemClock: WallClock {
    /// Creates the system clock.
    public init() {}
    /// `Date()`.
    public var now: Date { Date() }
}
