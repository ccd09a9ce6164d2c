import ContractKit

extension ContractVerifier {
    /// What checking an interaction's `delivers:` found on one side.
    struct DeliveryOutcome {
        /// The delivery claimed for each expectation, nil where none was.
        var claimed: [ContractRequest?] = []
        /// Missing or malformed deliveries, and `save` paths that held nothing.
        var mismatches: [Mismatch] = []
        /// What the deliveries' `save` captured.
        var saved: [String: JSONValue] = [:]
    }

    /// Claims one delivery from `inbox` for each of `interaction`'s `delivers`, in order,
    /// each within its `within` of `sentAt`; placeholders are filled from `variables` and
    /// what earlier deliveries of the interaction saved.
    func claimDeliveries(
        of interaction: Interaction, from inbox: DeliveryInbox, sentAt: ContinuousClock.Instant, variables: [String: JSONValue]
    ) async -> DeliveryOutcome {
        var outcome = DeliveryOutcome()
        var known = variables
        for delivery in interaction.delivers {
            let (expected, undefined) = delivery.resolved(with: known)
            if let name = undefined.first {
                outcome.claimed.append(nil)
                let label = "delivery \(delivery.summary)"
                outcome.mismatches.append(
                    Mismatch(path: label, expected: "a value for '{{\(name)}}'", actual: "nothing saved it before this delivery"))
                continue
            }
            switch await inbox.claim(expected, sentAt: sentAt) {
            case .claimed(let request):
                outcome.claimed.append(request)
                let captured = expected.captures(from: request)
                outcome.saved.merge(captured.values) { _, new in new }
                known.merge(captured.values) { _, new in new }
                outcome.mismatches += captured.missing.map {
                    Mismatch(path: "delivery \(delivery.summary) \($0.path)", expected: $0.expected, actual: $0.actual)
                }
            case .failed(let mismatches):
                outcome.claimed.append(nil)
                outcome.mismatches += mismatches
            }
        }
        return outcome
    }
}
