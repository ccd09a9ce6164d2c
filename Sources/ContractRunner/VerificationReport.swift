import ContractKit
import Foundation

/// The outcome of replaying one interaction.
public struct InteractionResult: Sendable {
    /// How it went.
    public enum Outcome: Sendable, Equatable {
        /// Everything the contract says held.
        case passed
        /// The response broke the contract in these ways.
        case failed([Mismatch])
        /// It could not be run (state set-up failed, the provider did not answer, …).
        case error(String)
    }

    /// The contract file's name.
    public let contract: String
    /// The interaction.
    public let interaction: Interaction
    /// How it went.
    public let outcome: Outcome
    /// What was sent, when it got that far.
    public let request: ContractRequest?
    /// What came back (from the live provider when there is one), when anything did.
    public let response: ContractResponse?
    /// What the stub answered, when both sides ran.
    public let stubResponse: ContractResponse?
    /// Wall time of the exchange, seconds.
    public let duration: Double

    /// Creates a result.
    public init(
        contract: String, interaction: Interaction, outcome: Outcome, request: ContractRequest?, response: ContractResponse?,
        stubResponse: ContractResponse? = nil, duration: Double
    ) {
        self.contract = contract
        self.interaction = interaction
        self.outcome = outcome
        self.request = request
        self.response = response
        self.stubResponse = stubResponse
        self.duration = duration
    }

    /// Whether it passed.
    public var passed: Bool { outcome == .passed }
}

/// Every result of a verification run, in file and interaction order.
///
/// ```swift
/// print("\(report.passedCount) passed, \(report.failedCount) failed")
/// ```
public struct VerificationReport: Sendable {
    /// The results.
    public let results: [InteractionResult]
    /// Wall time of the whole run, seconds.
    public let duration: Double

    /// Creates a report.
    public init(results: [InteractionResult], duration: Double) {
        self.results = results
        self.duration = duration
    }

    /// How many passed.
    public var passedCount: Int { results.filter(\.passed).count }
    /// How many failed or could not run.
    public var failedCount: Int { results.count - passedCount }
    /// Whether every interaction passed (and there was at least one).
    public var succeeded: Bool { !results.isEmpty && failedCount == 0 }
}
