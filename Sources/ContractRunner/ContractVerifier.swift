import ContractKit
import ContractStub
import Foundation

/// Replays contracts: files concurrently, the interactions of one file in order (so `save`
/// feeds later requests); files with a clock step (`after:`) afterwards, one at a time, since
/// the step moves the provider's clock and the stub's for every file. Each interaction goes to the live provider and to the in-process
/// stub (either may be left out); each response is checked against the contract, then the
/// two are compared with each other (``Agreement``).
///
/// ```swift
/// let verifier = ContractVerifier(live: HTTPTransport(baseURL: url), stub: try ContractStub(contracts: contracts), states: states)
/// let report = await verifier.verify(contracts)
/// ```
public struct ContractVerifier: Sendable {
    /// The live provider; nil for `--stub-only`.
    public let live: (any ContractTransport)?
    /// The stub; nil for `--live-only`.
    public let stub: ContractStub?
    /// How provider states are set up on the live side; nil when there are none.
    public let states: ProviderStates?
    /// How far live and stub must agree.
    public let agreement: AgreementMode
    /// How many files run at once.
    public let concurrency: Int
    /// Values for `{{env.NAME}}`: the process environment by default.
    public let environment: [String: JSONValue]
    /// Where the live provider's deliveries arrive (a ``DeliveryReceiver``'s inbox); nil:
    /// an interaction that declares `delivers:` cannot be checked live.
    public let deliveries: DeliveryInbox?
    /// The TOTP codes the requests send (`totp` matchers): the same step never twice for one
    /// key, on either side, for as long as this verifier runs.
    public let codes: TOTPCodeGenerator
    /// The software authenticators that make the live side's WebAuthn credentials
    /// (`webauthn_…` matchers), one per name for as long as this verifier runs. The stub's
    /// side has its own (``stubAuthenticators``): each side registers with, and signs for,
    /// the options it answered.
    public let liveAuthenticators = WebAuthnAuthenticators()
    /// The software authenticators of the stub's side.
    public let stubAuthenticators = WebAuthnAuthenticators()
    /// The run's OpenID provider (its ``DeliveryReceiver``'s), which signs the requests'
    /// `signed` JWTs; nil: they are sent as their examples.
    public let identityProvider: RunIdentityProvider?

    /// Creates a verifier; pass at least one of `live` and `stub`.
    public init(
        live: (any ContractTransport)?, stub: ContractStub? = nil, states: ProviderStates?, agreement: AgreementMode = .full,
        concurrency: Int = 4,
        environment: [String: String] = ProcessInfo.processInfo.environment, deliveries: DeliveryInbox? = nil,
        codes: TOTPCodeGenerator = TOTPCodeGenerator(), identityProvider: RunIdentityProvider? = nil
    ) {
        self.codes = codes
        self.identityProvider = identityProvider
        self.environment = Template.environmentVariables(environment)
        self.deliveries = deliveries
        self.live = live
        self.stub = stub
        self.states = states
        self.agreement = agreement
        self.concurrency = max(1, concurrency)
    }

    /// Verifies every interaction whose contract or interaction name contains `filter`
    /// (case-insensitively) and that uses the provider state `state` (exactly, ignoring
    /// case); nil selects all.
    public func verify(_ contracts: [Contract], filter: String? = nil, state: String? = nil) async -> VerificationReport {
        let start = ContinuousClock.now
        let selected = contracts.map { contract in
            (contract, contract.interactions.filter { Self.selects(filter, state: state, contract, $0) })
        }.filter { !$0.1.isEmpty }
        var results = [[InteractionResult]](repeating: [], count: selected.count)
        let stepping = Set(selected.indices.filter { selected[$0].1.contains { $0.after != nil } })
        let together = selected.indices.filter { !stepping.contains($0) }
        await withTaskGroup(of: (Int, [InteractionResult]).self) { group in
            var next = 0
            func addNext() {
                guard next < together.count else { return }
                let index = together[next]
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
        for index in stepping.sorted() {
            results[index] = await verify(selected[index].0, selected[index].1)
        }
        let all = results.flatMap { $0 }
        return VerificationReport(
            results: all, duration: Self.seconds(ContinuousClock.now - start),
            unseenVariants: live == nil ? [] : Self.unseenVariants(in: all))
    }

    /// The variants the interactions' responses allow that no live response showed, per
    /// place (`METHOD path status` and JSON path).
    static func unseenVariants(in results: [InteractionResult]) -> [VariantCoverage.Unseen] {
        var coverage = VariantCoverage()
        for result in results {
            let interaction = result.interaction
            let site = "\(interaction.request.method) \(interaction.request.path.text) \(interaction.response.status)"
            // Only an answer of the declared status shows that response's variants.
            let response = result.live == nil || result.response?.status != interaction.response.status ? nil : result.response
            let live =
                if case .form = interaction.response.body { response.flatMap { FormBody.object(of: $0.body) } } else { response?.json }
            coverage.observe(interaction.response, in: live, site: site, location: interaction.location)
        }
        return coverage.unseen
    }

    /// One side's exchange for one interaction.
    private struct SideResult {
        var check: CheckResult = .held
        var request: ContractRequest?
        var response: ContractResponse?
        /// What the interaction's `save` captured from the exchange, and its deliveries' `save`.
        var saved: [String: JSONValue] = [:]
        /// The delivery claimed for each of the interaction's `delivers`, nil where none was.
        var deliveries: [ContractRequest?] = []
    }

    /// Runs one file's interactions in order, each side with its own saved values.
    func verify(_ contract: Contract, _ interactions: [Interaction]) async -> [InteractionResult] {
        // `{{env.NAME}}` in a request is the environment's NAME, on both sides.
        var liveVariables = environment
        var stubVariables = environment
        // Each side keeps the file's cookies, as one browser would.
        var liveJar = CookieJar()
        var stubJar = CookieJar()
        var results: [InteractionResult] = []
        for interaction in interactions {
            let start = ContinuousClock.now
            var liveSide: SideResult?
            var stubSide: SideResult?
            // Time passes first, on every clock of the run.
            var clockProblem: String?
            if let after = interaction.after {
                stub?.advanceClock(by: after)
                if live != nil {
                    do { try await ProviderStates.advanceClock(by: after, with: states, codes: codes) } catch { clockProblem = "\(error)" }
                } else {
                    codes.advanceClock(by: after)
                }
            }
            if let clockProblem {
                liveSide = SideResult(check: .error(VerificationError(.clockStep, clockProblem)))
            } else if let live {
                liveSide = await run(
                    interaction, on: live, variables: liveVariables, setUpStates: true, inbox: deliveries,
                    authenticators: liveAuthenticators, jar: &liveJar)
                liveVariables.merge(liveSide?.saved ?? [:]) { _, new in new }
            }
            if let stub {
                // The stub's deliveries are all there once it answered: a complete inbox of this exchange's own.
                let inbox = DeliveryInbox(complete: true)
                stubSide = await run(
                    interaction, on: StubTransport(stub: stub, deliveries: inbox), variables: stubVariables, setUpStates: false,
                    inbox: inbox,
                    authenticators: stubAuthenticators, jar: &stubJar
                )
                stubVariables.merge(stubSide?.saved ?? [:]) { _, new in new }
            }
            var agreement: CheckResult?
            if let liveResponse = liveSide?.response, let stubResponse = stubSide?.response {
                let differences =
                    Agreement.compare(live: liveResponse, stub: stubResponse, spec: interaction.response, mode: self.agreement)
                    + Agreement.compare(
                        liveDeliveries: liveSide?.deliveries ?? [], stubDeliveries: stubSide?.deliveries ?? [], specs: interaction.delivers,
                        mode: self.agreement
                    )
                agreement = differences.isEmpty ? .held : .failed(differences)
            }
            let primary = liveSide ?? stubSide
            results.append(
                InteractionResult(
                    contract: contract.name, interaction: interaction, live: liveSide?.check, stub: stubSide?.check,
                    agreement: agreement, request: primary?.request, response: primary?.response,
                    stubResponse: liveSide != nil ? stubSide?.response : nil,
                    duration: Self.seconds(ContinuousClock.now - start)
                )
            )
        }
        return results
    }

    /// A replay that did not hold.
    public struct ReplayError: Error, Sendable, CustomStringConvertible {
        /// Which interaction failed, and how.
        public let description: String
    }

    /// Replays `interactions` in order on the live provider, states first, as ``verify(_:filter:state:)``
    /// does, and returns what they saved (with the environment's `env.NAME` values): the
    /// values the next interaction of the file would use.
    ///
    /// ```swift
    /// let saved = try await verifier.savedValues(replaying: Array(contract.interactions.prefix(3)))
    /// saved["first_refresh"]   // the refresh token the first login returned
    /// ```
    /// - Throws: ``ReplayError`` naming the first interaction that broke its contract or
    ///   could not run; nothing is replayed when `live` is nil.
    public func savedValues(replaying interactions: [Interaction]) async throws -> [String: JSONValue] {
        try await replayed(interactions).saved
    }

    /// ``savedValues(replaying:)`` with the jar the replay filled: the cookies a browser
    /// would send next.
    public func replayed(_ interactions: [Interaction]) async throws -> (saved: [String: JSONValue], jar: CookieJar) {
        guard let live else { throw ReplayError(description: "no live provider to replay on") }
        var variables = environment
        var jar = CookieJar()
        for interaction in interactions {
            if let after = interaction.after {
                do {
                    try await ProviderStates.advanceClock(by: after, with: states, codes: codes)
                } catch {
                    throw ReplayError(description: "replaying '\(interaction.name)': \(error)")
                }
            }
            let side = await run(
                interaction, on: live, variables: variables, setUpStates: true, inbox: deliveries, authenticators: liveAuthenticators,
                jar: &jar)
            switch side.check {
            case .held: break
            case .failed(let mismatches):
                let reasons = mismatches.map(\.description).joined(separator: "; ")
                throw ReplayError(description: "replaying '\(interaction.name)' broke its contract: \(reasons)")
            case .error(let error):
                throw ReplayError(description: "replaying '\(interaction.name)' failed: \(error)")
            }
            variables.merge(side.saved) { _, new in new }
        }
        return (variables, jar)
    }

    private func run(
        _ interaction: Interaction, on transport: any ContractTransport, variables: [String: JSONValue], setUpStates: Bool,
        inbox: DeliveryInbox?,
        authenticators: WebAuthnAuthenticators, jar: inout CookieJar
    ) async -> SideResult {
        var side = SideResult()
        // What a state's set-up saved: this interaction's values, and the later ones'.
        var stateValues: [String: JSONValue] = [:]
        var variables = variables
        if setUpStates {
            do {
                stateValues = try await ProviderStates.setUp(interaction.given.map { $0.resolved(with: variables) }, with: states)
                variables.merge(stateValues) { _, new in new }
            } catch {
                side.check = .error(VerificationError(.stateSetup, "\(error)"))
                return side
            }
        }
        let request: ContractRequest
        do {
            request = try await interaction.request.render(
                with: variables, waitingFor: codes, authenticators: authenticators, identityProvider: identityProvider)
        } catch let missing as WebAuthnAuthenticators.NoCredential {
            side.check = .error(VerificationError(.noCredential, "\(missing)"))
            return side
        } catch {
            let reason =
                switch error {
                case let undefined as Template.UndefinedVariable where undefined.name.hasPrefix("env."):
                    "\(error): set \(undefined.name.dropFirst(4)) in the environment"
                case is Template.UndefinedVariable: "\(error): an earlier interaction did not save it"
                default: "\(error)"
                }
            side.check = .error(VerificationError(.undefinedVariable, reason))
            return side
        }
        let sentAt = ContinuousClock.now
        let response: ContractResponse
        do {
            // Live, a browser flow goes through the run's identity provider's sign-in too.
            let elsewhere = transport is StubTransport ? nil : identityProvider.map { HTTPTransport(baseURL: $0.issuer) }
            (side.request, response) = try await transport.send(
                request, jar: &jar, followingRedirects: interaction.request.followRedirects, elsewhere: elsewhere)
        } catch {
            side.request = request
            side.check = .error(VerificationError(.noAnswer, "the provider did not answer: \(error)"))
            return side
        }
        side.response = response
        let captured = interaction.captures(request: side.request, response: response)
        side.saved = stateValues.merging(captured.values) { _, new in new }
        // The response may repeat what the request sent (`save: { id: request.path.id }`).
        let sent = captured.values.filter { interaction.save[$0.key]?.isFromRequest == true }
        let (spec, undefined) = interaction.response.resolved(with: variables.merging(sent) { _, new in new })
        if let name = undefined.first {
            side.check = .error(
                VerificationError(.undefinedVariable, "the response expects '{{\(name)}}': an earlier interaction did not save it"))
            return side
        }
        var mismatches = spec.mismatches(in: response) + captured.missing
        if !interaction.delivers.isEmpty {
            guard let inbox else {
                side.check = .error(
                    VerificationError(.noDeliveryReceiver, "the interaction declares deliveries and this run has no receiver for them"))
                return side
            }
            let delivered = await claimDeliveries(
                of: interaction, from: inbox, sentAt: sentAt, variables: variables.merging(captured.values) { _, new in new })
            mismatches += delivered.mismatches
            side.saved.merge(delivered.saved) { _, new in new }
            side.deliveries = delivered.claimed
        }
        side.check = mismatches.isEmpty ? .held : .failed(mismatches)
        return side
    }

    static func selects(_ filter: String?, state: String?, _ contract: Contract, _ interaction: Interaction) -> Bool {
        if let state, !interaction.given.contains(where: { $0.state.caseInsensitiveCompare(state) == .orderedSame }) { return false }
        guard let filter, !filter.isEmpty else { return true }
        return contract.name.localizedCaseInsensitiveContains(filter) || interaction.name.localizedCaseInsensitiveContains(filter)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
