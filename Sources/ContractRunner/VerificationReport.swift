import ContractKit
import Foundation

/// Why a check could not run: typed, so callers never match on message text.
///
/// ```swift
/// if case .error(let error) = result.live, error.code == .noAnswer { … }
/// ```
public struct VerificationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure, stable for comparisons (the pattern of `PSQLError.Code`).
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case stateSetup = "state_setup"
            case undefinedVariable = "undefined_variable"
            case noAnswer = "no_answer"
            case noDeliveryReceiver = "no_delivery_receiver"
            case noCredential = "no_credential"
            case clockStep = "clock_step"
        }

        private let base: Base

        /// A provider state could not be set up.
        public static let stateSetup = Code(base: .stateSetup)
        /// The request uses a `{{name}}` no earlier interaction saved.
        public static let undefinedVariable = Code(base: .undefinedVariable)
        /// The provider did not answer (refused, reset, timed out).
        public static let noAnswer = Code(base: .noAnswer)
        /// The interaction declares deliveries and the run has no receiver for them.
        public static let noDeliveryReceiver = Code(base: .noDeliveryReceiver)
        /// A `webauthn_assertion`'s authenticator registered no credential earlier in the run.
        public static let noCredential = Code(base: .noCredential)
        /// The provider's clock could not be moved for an interaction's `after:`.
        public static let clockStep = Code(base: .clockStep)

        /// `state_setup`, `undefined_variable`, `no_answer`, `no_delivery_receiver`, `no_credential` or `clock_step`.
        public var description: String { base.rawValue }
    }

    /// The kind.
    public let code: Code
    /// What happened, for people.
    public let description: String

    /// Creates an error.
    public init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }
}

/// How one check of an interaction went: the live provider against the contract, the
/// stub against the contract, or live and stub against each other.
public enum CheckResult: Sendable, Equatable {
    /// It held.
    case held
    /// It did not, in these ways.
    case failed([Mismatch])
    /// It could not run.
    case error(VerificationError)

    /// Whether it held.
    public var held: Bool { self == .held }
}

/// The outcome of replaying one interaction: up to three checks.
public struct InteractionResult: Sendable {
    /// The three checks folded into one, as the reports show them.
    public enum Outcome: Sendable, Equatable {
        /// Every check that ran held.
        case passed
        /// Some check found these differences (labelled `live`, `stub` or `agreement`
        /// when both sides ran).
        case failed([Mismatch])
        /// Some check could not run.
        case error(String)
    }

    /// The contract file's name.
    public let contract: String
    /// The interaction.
    public let interaction: Interaction
    /// The live provider against the contract; nil when the live side was not run.
    public let live: CheckResult?
    /// The stub against the contract; nil when the stub was not run.
    public let stub: CheckResult?
    /// Live and stub compared; nil when either side was not run or got no answer.
    public let agreement: CheckResult?
    /// What was sent, when it got that far (to the live provider when there is one).
    public let request: ContractRequest?
    /// What came back (from the live provider when there is one), when anything did.
    public let response: ContractResponse?
    /// What the stub answered, when both sides ran.
    public let stubResponse: ContractResponse?
    /// Wall time of the exchange, seconds.
    public let duration: Double

    /// Creates a result.
    public init(
        contract: String, interaction: Interaction, live: CheckResult?, stub: CheckResult?, agreement: CheckResult?,
        request: ContractRequest?, response: ContractResponse?, stubResponse: ContractResponse? = nil, duration: Double
    ) {
        self.contract = contract
        self.interaction = interaction
        self.live = live
        self.stub = stub
        self.agreement = agreement
        self.request = request
        self.response = response
        self.stubResponse = stubResponse
        self.duration = duration
    }

    /// The checks that apply, by name, in report order: `live`, `stub`, `agreement`
    /// (agreement applies whenever both sides ran, and counts as not held when it could
    /// not be made).
    public var checks: [(name: String, result: CheckResult?)] {
        var checks: [(String, CheckResult?)] = []
        if let live { checks.append(("live", live)) }
        if let stub { checks.append(("stub", stub)) }
        if live != nil, stub != nil { checks.append(("agreement", agreement)) }
        return checks
    }

    /// The checks folded into one: errors first, then every difference.
    public var outcome: Outcome {
        let labelled = live != nil && stub != nil
        let errors = checks.compactMap { name, result -> String? in
            guard case .error(let error) = result else { return nil }
            return labelled ? "\(name): \(error)" : error.description
        }
        if !errors.isEmpty { return .error(errors.joined(separator: "; ")) }
        let mismatches = checks.flatMap { name, result -> [Mismatch] in
            guard case .failed(let found) = result else { return [] }
            return labelled ? found.map { Mismatch(path: "\(name) \($0.path)", expected: $0.expected, actual: $0.actual) } : found
        }
        return mismatches.isEmpty ? .passed : .failed(mismatches)
    }

    /// Whether every check that applies held.
    public var passed: Bool { checks.allSatisfy { $0.result == .held } }
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
    /// The variants the contracts allow (a `one_of`'s alternatives, an optional key there
    /// and left out) that no live response showed; empty without a live side.
    public let unseenVariants: [VariantCoverage.Unseen]
    /// Whether unseen variants are only reported (`--allow-unseen-variants`), not a failure.
    public let unseenVariantsAllowed: Bool

    /// Creates a report.
    public init(
        results: [InteractionResult], duration: Double, unseenVariants: [VariantCoverage.Unseen] = [], unseenVariantsAllowed: Bool = false
    ) {
        self.results = results
        self.duration = duration
        self.unseenVariants = unseenVariants
        self.unseenVariantsAllowed = unseenVariantsAllowed
    }

    /// The same results, with unseen variants only reported.
    public func allowingUnseenVariants() -> VerificationReport {
        VerificationReport(results: results, duration: duration, unseenVariants: unseenVariants, unseenVariantsAllowed: true)
    }

    /// How many passed.
    public var passedCount: Int { results.filter(\.passed).count }
    /// How many failed or could not run.
    public var failedCount: Int { results.count - passedCount }
    /// Whether every interaction passed (and there was at least one), and every variant the
    /// contracts allow was seen live (unless ``unseenVariantsAllowed``).
    public var succeeded: Bool { !results.isEmpty && failedCount == 0 && (unseenVariants.isEmpty || unseenVariantsAllowed) }

    /// For one check (`live`, `stub` or `agreement`): how many interactions it applied to
    /// and how many of those held; nil when it applied to none.
    public func tally(_ check: String) -> (held: Int, of: Int)? {
        let applied = results.compactMap { result in result.checks.first { $0.name == check } }
        guard !applied.isEmpty else { return nil }
        return (applied.filter { $0.result == .held }.count, applied.count)
    }

    /// `24 interactions: live 24/24, stub 24/24, agreement 24/24` (a check that did not
    /// run says so).
    public var checkSummary: String {
        let parts = ["live", "stub", "agreement"].map { name in
            tally(name).map { "\(name) \($0.held)/\($0.of)" } ?? "\(name) not run"
        }
        let noun = results.count == 1 ? "interaction" : "interactions"
        return "\(results.count) \(noun): " + parts.joined(separator: ", ")
    }
}
