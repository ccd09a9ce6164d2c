import ContractKit
import Foundation
import Synchronization

/// The TOTP codes one run sends (`contract verify`, `probe`, `pact-states`): a code of the
/// current time step, never the same step twice for one key. When the current step was sent
/// already it sends the next one (a provider accepts a step either side of its own), and
/// when that was sent too it waits for time to move on (`RequestSpec.render(with:waitingFor:)`).
/// Steps only grow, since a provider refuses a step at or before the last it accepted.
///
/// ```swift
/// let codes = TOTPCodeGenerator()
/// let totp = try TOTP(secret: "JBSWY3DPEHPK3PXP")
/// let first = try codes.code(for: totp)    // the current step's code
/// let second = try codes.code(for: totp)   // the next step's, within the same 30 s
/// ```
public final class TOTPCodeGenerator: TOTPCodeSource {
    /// Every step a code could use now was sent already: try again at `until`.
    public struct StepsUsed: Error, Sendable, CustomStringConvertible {
        /// When the next step comes.
        public let until: Date

        /// What happened, for a person.
        public var description: String { "every TOTP step usable now was sent already; the next starts at \(until)" }
    }

    private let clock: @Sendable () -> Date
    /// Seconds the run's clock steps moved the provider's clock (``advanceClock(by:)``).
    private let offset = Mutex<Double>(0)
    private let sleep: @Sendable (Duration) async throws -> Void
    /// The last step sent, per key.
    private let sent = Mutex<[TOTP: Int64]>([:])

    /// A generator on the clock `now` that waits with `sleep` (tests pass a clock of their own).
    public init(
        now: @escaping @Sendable () -> Date = { Date() },
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.clock = now
        self.sleep = sleep
    }

    /// Moves this generator's clock `seconds` forward, as an interaction's `after:` moves the
    /// provider's: codes are of the provider's time from then on.
    public func advanceClock(by seconds: Double) {
        offset.withLock { $0 += seconds }
    }

    /// The provider's time: the clock plus the steps.
    private func now() -> Date {
        clock().addingTimeInterval(offset.withLock { $0 })
    }

    /// The code to send now for `totp`: of the current step if it was not sent yet (nor a
    /// later one), else of the next step.
    /// - Throws: ``StepsUsed`` when both were sent; ``Matcher`` sampling passes it on.
    public func code(for totp: TOTP) throws -> String {
        let current = totp.step(at: now())
        let step = try sent.withLock { sent -> Int64 in
            let next = sent[totp].map { Swift.max(current, $0 + 1) } ?? current
            guard next <= current + 1 else {
                throw StepsUsed(until: Date(timeIntervalSince1970: Double(next - 1) * Double(totp.period)))
            }
            sent[totp] = next
            return next
        }
        return totp.code(step: step)
    }

    /// Sleeps until `used.until` (and a little after, past the rounding of the clock).
    public func wait(_ used: StepsUsed) async throws {
        let seconds = Swift.max(0, used.until.timeIntervalSince(now()))
        try await sleep(.milliseconds(Int((seconds * 1000).rounded(.up)) + 20))
    }
}
