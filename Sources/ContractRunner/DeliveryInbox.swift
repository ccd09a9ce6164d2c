import ContractKit
import Foundation
import Synchronization

/// The deliveries that reached a receiver (method, path, headers, body and arrival time),
/// and the claims interactions make on them: one delivery satisfies one expectation, under
/// a lock, so interactions running at once never share one (what their bodies hold, such as
/// the username, tells theirs apart).
///
/// ```swift
/// let inbox = DeliveryInbox()
/// inbox.record(received)                                    // the receiver does this
/// let outcome = await inbox.claim(expected, sentAt: sent)   // waits up to expected.within
/// ```
public final class DeliveryInbox: Sendable {
    /// One received delivery.
    public struct Received: Sendable {
        /// What arrived, as an HTTP request.
        public let request: ContractRequest
        /// When it arrived.
        public let arrival: ContinuousClock.Instant
    }

    /// How a claim went.
    public enum Claim: Sendable {
        /// This delivery matched and is now taken.
        case claimed(ContractRequest)
        /// None matched in time; these are the differences of the closest unclaimed one, or
        /// a single mismatch saying none arrived.
        case failed([Mismatch])
    }

    private struct Entry {
        let received: Received
        var claimed = false
    }

    private struct State {
        var entries: [Entry] = []
        var complete = false
    }

    private let state = Mutex(State())
    /// How often a claim looks again while it waits.
    private let pollInterval: Duration

    /// An empty inbox. `complete`: nothing more will arrive, so a claim does not wait (the
    /// stub's deliveries, which are all there once it answered).
    public init(complete: Bool = false, pollInterval: Duration = .milliseconds(20)) {
        self.pollInterval = pollInterval
        state.withLock { $0.complete = complete }
    }

    /// Adds a delivery that arrived.
    public func record(_ request: ContractRequest, at arrival: ContinuousClock.Instant = .now) {
        state.withLock { $0.entries.append(Entry(received: Received(request: request, arrival: arrival))) }
    }

    /// Every delivery received so far, claimed or not.
    public var received: [Received] {
        state.withLock { $0.entries.map(\.received) }
    }

    /// Waits until `expected.within` seconds after `sentAt` (when the interaction's request
    /// was sent) for an unclaimed delivery that arrived since then and matches `expected`
    /// (placeholders resolved), and claims it.
    public func claim(_ expected: Delivery, sentAt: ContinuousClock.Instant) async -> Claim {
        let deadline = sentAt + .milliseconds(Int((expected.within * 1000).rounded(.up)))
        while true {
            let found: ContractRequest? = state.withLock { state in
                for index in state.entries.indices where !state.entries[index].claimed && state.entries[index].received.arrival >= sentAt {
                    if expected.mismatches(in: state.entries[index].received.request).isEmpty {
                        state.entries[index].claimed = true
                        return state.entries[index].received.request
                    }
                }
                return nil
            }
            if let found { return .claimed(found) }
            let complete = state.withLock { $0.complete }
            if complete || ContinuousClock.now >= deadline { break }
            try? await Task.sleep(for: pollInterval)
            if Task.isCancelled { break }
        }
        return .failed(closestMismatches(expected, sentAt: sentAt))
    }

    /// The differences of the unclaimed delivery closest to `expected` (fewest differences,
    /// the same method and path first), each path prefixed with the delivery; or one
    /// mismatch saying none arrived.
    private func closestMismatches(_ expected: Delivery, sentAt: ContinuousClock.Instant) -> [Mismatch] {
        let label = "delivery \(expected.summary)"
        let candidates = state.withLock { state in
            state.entries.filter { !$0.claimed && $0.received.arrival >= sentAt }.map(\.received.request)
        }
        let ranked = candidates.map { candidate -> (mismatches: [Mismatch], rank: Int) in
            let mismatches = expected.mismatches(in: candidate)
            let elsewhere = mismatches.contains { $0.path == "method" || $0.path == "path" }
            return (mismatches, (elsewhere ? 1000 : 0) + mismatches.count)
        }
        guard let closest = ranked.min(by: { $0.rank < $1.rank }) else {
            return [
                Mismatch(
                    path: label, expected: "a delivery within \(Self.seconds(expected.within)) s",
                    actual: "no delivery to \(expected.summary) within \(Self.seconds(expected.within)) s")
            ]
        }
        return closest.mismatches.map { Mismatch(path: "\(label) \($0.path)", expected: $0.expected, actual: $0.actual) }
    }

    /// `5`, `0.5`.
    static func seconds(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e9 ? String(Int(value)) : String(value)
    }
}
