import ContractKit
import Foundation

/// Replays contracts against a transport: files concurrently, the interactions of one file
/// in order (so `save` feeds later requests), each checked against its contract.
///
/// ```swift
/// let verifier = ContractVerifier(transport: HTTPTransport(baseURL: url), states: states)
/// let report = await verifier.verify(suite.contracts)
/// ```
public struct ContractVerifier<Transport: ContractTransport>: Sendable {
    /// Where requests go.
    public let transport: Transport
    /// How provider states are set up; nil when there are none.
    public let states: ProviderStates?
    /// How many files run at once.
    public let concurrency: Int

    /// Creates a verifier.
    public init(transport: Transport, states: ProviderStates?, concurrency: Int = 4) {
        self.transport = transport
        self.states = states
        self.concurrency = max(1, concurrency)
    }

    /// Verifies every interaction whose contract or interaction name contains `filter`
    /// (case-insensitively), or all when `filter` is nil.
    public func verify(_ contracts: [Contract], filter: String? = nil) async -> VerificationReport {
        let start = ContinuousClock.now
        let selected = contracts.map { contract in
            (contract, contract.interactions.filter { Self.selects(filter, contract, $0) })
        }.filter { !$0.1.isEmpty }
        var results = [[InteractionResult]](repeating: [], count: selected.count)
        await withTaskGroup(of: (Int, [InteractionResult]).self) { group in
            var next = 0
            func addNext() {
                guard next < selected.count else { return }
                let index = next
                let (contract, interactions) = selected[index]
                group.addTask { (index, await verify(contract, interactions)) }
                next += 1
            }
            for _ in 0..<concurrency { addNext() }
            for await (index, fileResults) in group {
                results[index] = fileResults
                addNext()
            }
        }
        let elapsed = ContinuousClock.now - start
        return VerificationReport(results: results.flatMap { $0 }, duration: Self.seconds(elapsed))
    }

    /// Runs one file's interactions in order.
    func verify(_ contract: Contract, _ interactions: [Interaction]) async -> [InteractionResult] {
        var variables: [String: JSONValue] = [:]
        var results: [InteractionResult] = []
        for interaction in interactions {
            let result = await run(interaction, of: contract, variables: variables)
            if let response = result.response {
                variables.merge(interaction.captures(from: response).values) { _, new in new }
            }
            results.append(result)
        }
        return results
    }

    private func run(_ interaction: Interaction, of contract: Contract, variables: [String: JSONValue]) async -> InteractionResult {
        let start = ContinuousClock.now
        func result(_ outcome: InteractionResult.Outcome, _ request: ContractRequest? = nil, _ response: ContractResponse? = nil) -> InteractionResult {
            InteractionResult(
                contract: contract.name, interaction: interaction, outcome: outcome, request: request, response: response,
                duration: Self.seconds(ContinuousClock.now - start)
            )
        }
        for use in interaction.given {
            guard let states else { return result(.error("provider state '\(use.state)' is needed but contract.yaml defines no states")) }
            do {
                try await states.setUp(use)
            } catch {
                return result(.error("\(error)"))
            }
        }
        let request: ContractRequest
        do {
            request = try interaction.request.render(with: variables)
        } catch {
            return result(.error("\(error): an earlier interaction did not save it"))
        }
        let response: ContractResponse
        do {
            response = try await transport.send(request)
        } catch {
            return result(.error("the provider did not answer: \(error)"), request)
        }
        let mismatches = interaction.response.mismatches(in: response) + interaction.captures(from: response).missing
        return result(mismatches.isEmpty ? .passed : .failed(mismatches), request, response)
    }

    static func selects(_ filter: String?, _ contract: Contract, _ interaction: Interaction) -> Bool {
        guard let filter, !filter.isEmpty else { return true }
        return contract.name.localizedCaseInsensitiveContains(filter) || interaction.name.localizedCaseInsensitiveContains(filter)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
