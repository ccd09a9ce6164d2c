import Foundation

/// How messages are sent: how many a pass takes, how long a claim holds them, and how
/// failed ones wait: 1 s after the first failure, doubling, at most ``maxBackoff``, each
/// wait shortened by up to a fifth at random so instances that failed together do not
/// retry together. A message is given up when its token expires.
///
/// ```swift
/// let policy = DeliveryPolicy()
/// policy.backoff(afterAttempts: 1)   // ≈ 1 s
/// policy.backoff(afterAttempts: 4)   // ≈ 8 s
/// ```
public struct DeliveryPolicy: Sendable, Equatable {
    /// Messages one pass claims.
    public var batchSize = 10
    /// How long one post may take, seconds; a claim holds its messages three times as long
    /// (``lease``), so a message is sent again only if its sender died.
    public var timeout: TimeInterval = 10
    /// How long a claim holds its messages, seconds.
    public var lease: TimeInterval { timeout * 3 }
    /// The wait after the first failure, seconds.
    public var firstBackoff: TimeInterval = 1
    /// The longest wait between attempts, seconds.
    public var maxBackoff: TimeInterval = 300
    /// How often an idle sender looks for due messages (a message queued by this instance
    /// wakes it at once).
    public var pollInterval: Duration = .seconds(1)

    /// The default policy.
    public init() {}

    /// The wait before the next attempt after `attempts` failed ones (jitter included).
    public func backoff(afterAttempts attempts: Int) -> TimeInterval {
        let doubled = firstBackoff * pow(2, Double(min(max(attempts - 1, 0), 30)))
        let wait = min(doubled, maxBackoff)
        return wait - wait * 0.2 * Double.random(in: 0..<1)
    }
}
