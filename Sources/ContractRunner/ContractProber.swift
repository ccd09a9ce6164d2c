import ContractKit
import ContractStub
import Foundation

/// `contract probe`: replays each file's interactions against the live provider as verify
/// does (states set up, values saved), then sends bad-input variants of every request with
/// a body (``ProbeVariant``). Each answer must come within `deadline`, be a 4xx, and have
/// the JSON shape of a 4xx response the contracts declare (``ErrorShapes``); a 5xx, a hang,
/// any other status or an undeclared shape is a failure. The stub built from the same
/// contracts is asked each variant too: where it answers with the live status, a contract
/// describes that answer; elsewhere it would answer 501, an error path no contract covers.
///
/// ```swift
/// let prober = ContractProber(live: HTTPTransport(baseURL: url), contracts: contracts, states: states)
/// let report = await prober.probe()
/// print(ProbeTextReport.render(report, color: false))
/// ```
public struct ContractProber: Sendable {
    /// The live provider.
    public let live: any ContractTransport
    /// The contracts to probe, whose 4xx responses are the declared shapes.
    public let contracts: [Contract]
    /// How provider states are set up; nil when there are none.
    public let states: ProviderStates?
    /// How long an answer may take.
    public let deadline: Duration
    /// Sizes of the too-long and too-large variants.
    public let limits: ProbeVariant.Limits
    /// Values for `{{env.NAME}}`.
    public let environment: [String: JSONValue]
    /// The run's OpenID provider, which signs the requests' `signed` JWTs.
    public let identityProvider: RunIdentityProvider?

    /// Creates a prober.
    public init(
        live: any ContractTransport, contracts: [Contract], states: ProviderStates?, deadline: Duration = .seconds(5),
        limits: ProbeVariant.Limits = .init(), environment: [String: String] = ProcessInfo.processInfo.environment,
        identityProvider: RunIdentityProvider? = nil
    ) {
        self.identityProvider = identityProvider
        self.live = live
        self.contracts = contracts
        self.states = states
        self.deadline = deadline
        self.limits = limits
        self.environment = Template.environmentVariables(environment)
    }

    /// Probes every interaction whose contract or interaction name contains `filter`.
    public func probe(filter: String? = nil) async -> ProbeReport {
        let start = ContinuousClock.now
        let shapes = ErrorShapes(contracts)
        let stub = try? ContractStub(contracts: contracts)
        var tried = Set<String>()
        let optional = ProbeVariant.optionalFields(in: contracts)
        var results: [ProbeReport.InteractionProbe] = []
        // TOTP codes as verify sends them: each step once per key in the run; WebAuthn
        // credentials by one software authenticator per name in the run.
        let codes = TOTPCodeGenerator()
        let authenticators = WebAuthnAuthenticators()
        for contract in contracts {
            let selected = contract.interactions.filter { ContractVerifier.selects(filter, state: nil, contract, $0) }
            guard !selected.isEmpty else { continue }
            // The file's own sequence first, so that saved values are what the provider gave.
            let requests = await replay(selected, codes: codes, authenticators: authenticators)
            for (index, (interaction, rendered)) in zip(selected, requests).enumerated() {
                var probe = ProbeReport.InteractionProbe(contract: contract.name, interaction: interaction)
                guard case .success(let request) = rendered else {
                    if case .failure(let reason) = rendered { probe.note = reason.description }
                    results.append(probe)
                    continue
                }
                let variants = ProbeVariant.derive(
                    from: request, limits: limits, optional: optional[ProbeVariant.route(of: interaction)] ?? [])
                if variants.isEmpty { probe.note = "no request body: nothing to vary" }
                for variant in variants {
                    guard tried.insert(Self.key(variant.request)).inserted else {
                        probe.repeats += 1
                        continue
                    }
                    guard variant.onFreshGrant else {
                        probe.variants.append(await check(variant, shapes: shapes, stub: stub))
                        continue
                    }
                    // The interactions before it again, for a code the variant finds unspent.
                    let fresh = await replay(Array(selected[...index]), codes: codes, authenticators: authenticators, sendingLast: false)
                    guard case .success(let request)? = fresh.last,
                        let again = ProbeVariant.pkceVariants(of: request).first(where: { $0.name == variant.name })
                    else {
                        var result = ProbeReport.VariantResult(name: variant.name, request: variant.request)
                        let reason = if case .failure(let reason)? = fresh.last { ": \(reason)" } else { "" }
                        result.failure = "the interactions before it could not be replayed for a fresh code" + reason
                        probe.variants.append(result)
                        continue
                    }
                    probe.variants.append(await check(again, shapes: shapes, stub: stub))
                }
                results.append(probe)
            }
        }
        return ProbeReport(interactions: results, duration: ContractVerifier.seconds(ContinuousClock.now - start))
    }

    /// Sends the interactions in order, as verify's live side does, and returns each one's
    /// request, or why it could not be made. The sequence is not what is probed, so its
    /// answers may take ``replayDeadlineFactor`` times `deadline`; an interaction that got no
    /// answer is named in the note of those that needed a value it would have saved. Without
    /// `sendingLast`, the last request is made but not sent (a variant takes its place).
    private func replay(
        _ interactions: [Interaction], codes: TOTPCodeGenerator, authenticators: WebAuthnAuthenticators, sendingLast: Bool = true
    ) async -> [Result<ContractRequest, ProbeReport.NotProbed>] {
        var variables = environment
        var requests: [Result<ContractRequest, ProbeReport.NotProbed>] = []
        var unanswered: [String] = []
        var deliverySaved = Set<String>()
        // The sequence's cookies, as verify keeps them: the variants are sent with them too.
        var jar = CookieJar()
        let replayDeadline = deadline * Self.replayDeadlineFactor
        for interaction in interactions {
            do {
                let given = interaction.given.map { $0.resolved(with: variables) }
                variables.merge(try await ProviderStates.setUp(given, with: states)) { _, new in new }
                if let after = interaction.after { try await ProviderStates.advanceClock(by: after, with: states, codes: codes) }
                var rendered = try await interaction.request.render(
                    with: variables, waitingFor: codes, authenticators: authenticators, identityProvider: identityProvider)
                let url = live.url(of: rendered)
                if let url, rendered.header("Cookie") == nil, let cookie = jar.header(for: url) {
                    rendered.headers.append((name: "Cookie", value: cookie))
                }
                let request = rendered
                requests.append(.success(request))
                if !sendingLast && requests.count == interactions.count { break }
                let outcome: Result<ContractResponse?, any Error>
                do {
                    outcome = .success(try await withDeadline(replayDeadline, { try await live.send(request) }))
                } catch {
                    outcome = .failure(error)
                }
                switch outcome {
                case .success(let response?):
                    if let url { jar.store(from: response, for: url) }
                    variables.merge(interaction.captures(request: request, response: response).values) { _, new in new }
                case .success(nil) where !interaction.save.isEmpty:
                    unanswered.append("'\(interaction.name)' got no answer within \(Self.describe(replayDeadline))")
                case .failure(let error) where !interaction.save.isEmpty:
                    unanswered.append("'\(interaction.name)' failed: \(error)")
                default:
                    break
                }
            } catch {
                var earlier = unanswered.isEmpty ? "" : " (\(unanswered.joined(separator: "; ")))"
                // Probe does not wait for deliveries (delivers:), so what they save is unknown here.
                if let undefined = error as? Template.UndefinedVariable, deliverySaved.contains(undefined.name) {
                    earlier += " (saved from a delivery: probe does not wait for deliveries)"
                }
                requests.append(.failure(ProbeReport.NotProbed("\(error)\(earlier)")))
            }
            deliverySaved.formUnion(interaction.delivers.flatMap(\.save.keys))
        }
        return requests
    }

    /// How many times `deadline` the replayed sequence's answers may take.
    static let replayDeadlineFactor = 4

    private func check(_ variant: ProbeVariant, shapes: ErrorShapes, stub: ContractStub?) async -> ProbeReport.VariantResult {
        var result = ProbeReport.VariantResult(name: variant.name, request: variant.request)
        let response: ContractResponse
        do {
            guard let answer = try await withDeadline(nil, { try await live.send(variant.request) }) else {
                result.failure = "no answer within \(Self.describe(deadline))"
                return result
            }
            response = answer
        } catch {
            result.failure = "no answer: \(error)"
            return result
        }
        result.status = response.status
        if case .string(let code)? = response.json?["error"] { result.errorCode = code }
        if let stub {
            stub.reset()
            let answer = stub.respond(to: variant.request)
            if let name = stub.exchanges.last?.interaction { result.stubAnswer = (name, answer.status) }
        }
        if let error = shapes.redirectedError(response) {
            // Refused the OAuth way: back at the app's redirect URI with an error (RFC 6749 §4.1.2.1).
            result.errorCode = error
            return result
        }
        switch response.status {
        case 500...: result.failure = "a server error (\(response.status))" + Self.excerpt(response)
        case 400..<500:
            let page = String(decoding: response.body, as: UTF8.self)
            if !shapes.accepts(response.json),
                !shapes.accepts(page: page, method: variant.request.method, target: variant.request.target)
            {
                result.failure = "an error shape no contract declares:" + Self.excerpt(response)
            }
        default: result.failure = "status \(response.status), not a 4xx, for bad input"
        }
        return result
    }

    /// `body`'s value, or nil when `deadline` passes first.
    private func withDeadline(
        _ deadline: Duration? = nil, _ body: @escaping @Sendable () async throws -> ContractResponse
    ) async throws -> ContractResponse? {
        let deadline = deadline ?? self.deadline
        return try await withThrowingTaskGroup(of: ContractResponse?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: deadline)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    private static func key(_ request: ContractRequest) -> String {
        var hasher = Hasher()
        // Every byte: Data's own hash reads only the first 80, so two variants that differ
        // after them (a verifier changed at the end of a form) were taken for one.
        request.body?.withUnsafeBytes { hasher.combine(bytes: $0) }
        let headers = request.headers.map { "\($0.name.lowercased()): \($0.value)" }.joined(separator: "\n")
        return "\(request.method) \(request.target)\n\(headers)\n\(hasher.finalize())\n\(request.body?.count ?? -1)"
    }

    private static func excerpt(_ response: ContractResponse) -> String {
        guard !response.body.isEmpty else { return " an empty body" }
        let text = String(decoding: response.body.prefix(120), as: UTF8.self)
        return " " + JSONValue.string(response.body.count > 120 ? text + "…" : text).description
    }

    private static func describe(_ duration: Duration) -> String {
        let seconds = ContractVerifier.seconds(duration)
        return seconds.rounded() == seconds ? "\(Int(seconds)) s" : "\(seconds) s"
    }
}
