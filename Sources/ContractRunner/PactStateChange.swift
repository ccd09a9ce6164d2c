import ContractInterop
import ContractKit
import Foundation

/// Answers the Pact verifier's state-change requests (`POST {"state", "params", "action"}`)
/// for a Pact file that `contract export pact` wrote: a provider state is set up as
/// `contract.yaml` says, and ``PactExporter/savedValuesState`` replays the interactions
/// before the named one in its contract and answers with the values its request uses, which
/// the verifier puts in place of `${name}` (and moves the provider's clock when the named one
/// happens `after:` a while).
///
/// ```swift
/// let handler = PactStateChange(contracts: suite.contracts, verifier: ContractVerifier(live: transport, states: states))
/// try await ContractStubServer.serve(port: 0) { await handler.respond(to: $0) }
/// ```
public struct PactStateChange: Sendable {
    /// The contracts the Pact file was exported from.
    public let contracts: [Contract]
    /// Replays on the live provider and sets up its states.
    public let verifier: ContractVerifier

    /// Creates a handler.
    public init(contracts: [Contract], verifier: ContractVerifier) {
        self.contracts = contracts
        self.verifier = verifier
    }

    /// A state-change request's answer: 200 with a JSON object (the saved values, or `{}`),
    /// or 400 or 500 with `{"error": "…"}` saying what failed.
    public func respond(to request: ContractRequest) async -> ContractResponse {
        guard request.method == "POST", case .object(let body)? = request.body.flatMap({ try? JSONValue(parsing: $0) }) else {
            return Self.answer(400, ["error": "POST a JSON object {\"state\", \"params\", \"action\"}"])
        }
        let params: [String: JSONValue] = if case .object(let params)? = body["params"] { params } else { [:] }
        guard case .string(let state)? = body["state"], !state.isEmpty, body["action"] != "teardown" else {
            // No state (the verifier asks for "" before an interaction without one), or a teardown.
            return Self.answer(200, [:])
        }
        do {
            if state == PactExporter.savedValuesState {
                return Self.answer(200, try await savedValues(params))
            }
            try await ProviderStates.setUp([ProviderStateUse(state: state, params: params)], with: verifier.states)
            return Self.answer(200, [:])
        } catch {
            return Self.answer(500, ["error": .string("\(error)")])
        }
    }

    /// The values the named interaction's request uses, as its contract's earlier
    /// interactions saved them.
    func savedValues(_ params: [String: JSONValue]) async throws -> [String: JSONValue] {
        guard case .string(let contractName)? = params["contract"], case .string(let interactionName)? = params["interaction"] else {
            throw ContractVerifier.ReplayError(description: "'\(PactExporter.savedValuesState)' needs the params contract and interaction")
        }
        guard let contract = contracts.first(where: { $0.name == contractName }) else {
            throw ContractVerifier.ReplayError(description: "no contract is named '\(contractName)'")
        }
        guard let index = contract.interactions.firstIndex(where: { $0.name == interactionName }) else {
            throw ContractVerifier.ReplayError(description: "contract '\(contractName)' has no interaction '\(interactionName)'")
        }
        let (saved, jar) = try await verifier.replayed(Array(contract.interactions[..<index]))
        // The interaction itself happens later: time passes before the verifier sends it.
        if let after = contract.interactions[index].after {
            try await ProviderStates.advanceClock(by: after, with: verifier.states, codes: verifier.codes)
        }
        var values: [String: JSONValue] = [:]
        for name in contract.interactions[index].request.variables {
            guard let value = saved[name] else {
                throw ContractVerifier.ReplayError(
                    description: "'\(interactionName)' uses {{\(name)}}, which no earlier interaction of '\(contractName)' saved")
            }
            values[name] = value
        }
        // The cookies a browser would send with it (a Cookie header the export generates from this).
        let request = contract.interactions[index].request
        if contract.interactions[..<index].contains(where: { !$0.response.cookies.isEmpty }), let live = verifier.live,
            let path = try? request.path.render(with: saved), let url = URL(string: live.baseURL + path)
        {
            values[PactExporter.sequenceCookies] = .string(jar.header(for: url) ?? "")
        }
        return values
    }

    private static func answer(_ status: Int, _ body: [String: JSONValue]) -> ContractResponse {
        ContractResponse(
            status: status, headers: [(name: "Content-Type", value: "application/json")],
            body: Data(JSONValue.object(body).description.utf8))
    }
}
