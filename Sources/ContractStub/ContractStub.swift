import ContractKit
import Foundation
import Synchronization

/// An in-process fake of a provider, built from its contracts and proven equal to it by
/// `contract verify`.
///
/// A request goes in; the most specific matching interaction answers (position by position,
/// a literal beats a narrow matcher such as `uuid`, which beats a wide one such as `string`,
/// which beats `any` or an unknown placeholder; method, path, query, declared headers and
/// JSON body all count). Responses
/// are built from the contract: literals as written, matchers from their `example` or a
/// generated value; `jwt` is a real JWT signed by the stub's own key, whose JWKS answers
/// JWKS requests, with the `claims:` a contract asks for. It is stateful where the
/// contracts are: a value it handed out and a later request sends back (`{{name}}` in the
/// contract) must be the same one, and a response may repeat a saved value
/// (`user_id: "{{sub}}"`). When several interactions fit a request equally (the same
/// refresh token sent twice), the next one after the last it answered in that file
/// answers, so a replay gets the file's answer to a replay. A `totp` matcher in a request
/// takes a code of the key saved under its `secret`, valid within one time step of the stub's
/// clock, once: a code of a step at or before one it accepted for that key is refused, as a
/// provider refuses a replay (``TOTP`` computes the codes a client test sends). As a
/// WebAuthn relying party it takes a `webauthn_registration` credential that verifies against
/// the creation options it answered and saved (and remembers the passkey for its session),
/// and a `webauthn_assertion` that a remembered passkey signed for the request options it
/// answered, with a counter that moved forward (``SoftwareAuthenticator`` makes both in a
/// client test). Its clock moves with ``advanceClock(by:)``: an interaction written
/// `after: 901s` answers only once the clock moved that far since the stub last answered in
/// its file (and then before an equal match without it), the tokens it mints carry its
/// clock's `iat` and `exp`, and TOTP codes are checked against it. A request
/// nothing matches gets 501 with the closest interaction and what differs, and is
/// recorded in ``unmatched``.
///
/// ```swift
/// let stub = try ContractStub(directory: "contracts")
/// let session = stub.urlSession                    // or stub.urlSessionConfiguration
/// let (data, response) = try await session.data(for: loginRequest)
/// #expect(stub.unmatched.isEmpty)
/// ```
public final class ContractStub: Sendable {
    /// One request the stub received, with what it answered.
    public struct Exchange: Sendable {
        /// The request.
        public let request: ContractRequest
        /// The answer.
        public let response: ContractResponse
        /// The interaction that answered, nil when none matched.
        public let interaction: String?
        /// What the interaction's `delivers:` sent, in order.
        public let deliveries: [StubDelivery]
        /// The fault a test injected into this exchange (``inject(_:for:times:)``), if any.
        public let fault: StubFault?

        init(
            request: ContractRequest, response: ContractResponse, interaction: String?, deliveries: [StubDelivery] = [],
            fault: StubFault? = nil
        ) {
            self.request = request
            self.response = response
            self.interaction = interaction
            self.deliveries = deliveries
            self.fault = fault
        }
    }

    /// A request nothing matched.
    public struct Unmatched: Sendable, CustomStringConvertible {
        /// The request.
        public let request: ContractRequest
        /// The closest interaction, if any has the same method.
        public let closest: String?
        /// What differs from it.
        public let difference: String

        /// `METHOD target: closest 'name': difference`.
        public var description: String {
            "\(request.method) \(request.target): " + (closest.map { "closest interaction '\($0)': " } ?? "") + difference
        }
    }

    /// The contracts could not be turned into a stub.
    public struct BuildError: Error, CustomStringConvertible {
        /// Every problem, one per line.
        public let description: String
    }

    /// A class, so that looking at a candidate copies one reference, not a contract.
    private final class Entry: Sendable {
        let contract: Contract
        let interaction: Interaction
        let label: String
        /// Position in its file, for the "next after the last answered" rule.
        let index: Int

        init(contract: Contract, interaction: Interaction, label: String, index: Int) {
            self.contract = contract
            self.interaction = interaction
            self.label = label
            self.index = index
        }
    }

    private struct State: Sendable {
        var variables: [String: [String: JSONValue]] = [:]
        /// Per file, the index of the interaction answered last.
        var lastAnswered: [String: Int] = [:]
        var exchanges: [Exchange] = []
        var unmatched: [Unmatched] = []
        /// The last TOTP step accepted, per key.
        var acceptedSteps: [TOTP: Int64] = [:]
        /// The passkeys registered with `webauthn_registration` matchers.
        var passkeys = StubPasskeys()
        /// Seconds ``advanceClock(by:)`` moved the clock.
        var clockOffset: Double = 0
        /// Per file, the stub's time when it last answered there (for `after:`).
        var lastAnsweredAt: [String: Date] = [:]
        /// The stub's time when it was made or reset.
        var startedAt: Date
    }

    private let entries: [Entry]
    /// The entries a request can fit (by route, and by a literal in the body).
    private let index: CandidateIndex
    private let state: Mutex<State>
    /// Where deliveries go (``deliveries``, ``onDelivery(_:)``).
    let deliveryHub = StubDeliveryHub()
    /// Usage and injected faults (ContractStub+Usage, ContractStub+Faults).
    let hooks = StubHooks()
    /// The key that signs the stub's JWTs.
    public let signer: StubSigner
    /// The values of the `{{env.NAME}}` placeholders the requests use, from the environment.
    private let environment: [String: JSONValue]
    /// The clock the stub's own runs on, before ``advanceClock(by:)``.
    private let clock: @Sendable () -> Date

    /// A stub answering with `contracts`; only interactions whose provider states are all in
    /// `activeStates` take part (nil: all states are active). `environment` gives
    /// `{{env.NAME}}` placeholders their values (the process environment by default); one
    /// without a value accepts anything. `now` is the clock TOTP codes are checked against
    /// (a test may fix it, and compute its codes with `TOTP.code(at:)` at the same time).
    /// - Throws: ``BuildError`` when a response cannot be built (a regex matcher without example).
    public init(
        contracts: [Contract], activeStates: Set<String>? = nil, signer: StubSigner = StubSigner(),
        environment: [String: String] = ProcessInfo.processInfo.environment, now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        self.signer = signer
        self.clock = now
        self.state = Mutex(State(startedAt: now()))
        let used = Set(contracts.flatMap { $0.interactions.flatMap(\.request.variables) })
        self.environment = Template.environmentVariables(environment).filter { used.contains($0.key) }
        var entries: [Entry] = []
        var problems: [String] = []
        let generator = ResponseGenerator(signer: signer)
        for contract in contracts {
            for (index, interaction) in contract.interactions.enumerated() {
                if let activeStates, !interaction.given.allSatisfy({ activeStates.contains($0.state) }) { continue }
                do {
                    _ = try Self.build(interaction.response, generator: generator)
                    for delivery in interaction.delivers { _ = try Self.build(delivery, of: interaction.name, generator: generator) }
                } catch {
                    problems.append("\(interaction.location): \(error)")
                }
                entries.append(
                    Entry(
                        contract: contract, interaction: interaction, label: "\(interaction.name) (\(interaction.location))", index: index))
            }
        }
        guard problems.isEmpty else { throw BuildError(description: problems.joined(separator: "\n")) }
        self.entries = entries
        index = CandidateIndex(requests: entries.map(\.interaction.request))
        hooks.register(entries.map { ($0.contract, $0.interaction) })
    }

    /// A stub from the contracts in `directory`, checking TOTP codes against `now`.
    /// - Throws: ``BuildError`` listing every diagnostic when the contracts are broken.
    public convenience init(directory: String, activeStates: Set<String>? = nil, now: @escaping @Sendable () -> Date = { Date() }) throws {
        let suite = ContractLoader.load(directory: directory)
        guard suite.diagnostics.isEmpty else {
            throw BuildError(description: suite.diagnostics.map(\.description).joined(separator: "\n"))
        }
        try self.init(contracts: suite.contracts, activeStates: activeStates, now: now)
    }

    /// Every request received so far, in order.
    public var exchanges: [Exchange] { state.withLock { $0.exchanges } }
    /// The requests no interaction matched.
    public var unmatched: [Unmatched] { state.withLock { $0.unmatched } }
    /// The requests received so far.
    public var requests: [ContractRequest] { exchanges.map(\.request) }

    /// Forgets saved values and recordings, and the clock's steps.
    public func reset() {
        let start = clock()
        state.withLock { $0 = State(startedAt: start) }
        deliveryHub.clear()
    }

    /// Makes the file of the interaction named `name` go on from it, as if the interactions
    /// before it had been answered: of the interactions a request fits equally, it answers
    /// next (WireMock's scenario states, from the contract's order). A test of an app's
    /// sign-in starts at the answer a signed-in browser gets, without a page:
    ///
    /// ```swift
    /// try stub.resume(at: "the browser signed in, that allowed phone-app, gets its code at once, without a page")
    /// ```
    ///
    /// What the interactions before it saved stays unsaved: the interaction saves what it
    /// needs from its own request. `file` (its path, or the end of it) picks among files
    /// with an interaction of that name.
    /// - Throws: ``BuildError`` when no interaction has that name, or several files have one.
    public func resume(at name: String, in file: String? = nil) throws {
        let named = entries.filter { $0.interaction.name == name && (file.map($0.contract.file.hasSuffix) ?? true) }
        guard let entry = named.first else { throw BuildError(description: "no interaction is named '\(name)'") }
        guard named.allSatisfy({ $0.contract.file == entry.contract.file }) else {
            throw BuildError(
                description:
                    "interactions of \(named.map(\.contract.file).joined(separator: " and ")) are named '\(name)': name the file too")
        }
        let time = now
        state.withLock { state in
            let file = entry.contract.file
            state.lastAnswered[file] = entry.index > 0 ? entry.index - 1 : nil
            state.lastAnsweredAt[file] = time
        }
    }

    /// The stub's time: its clock plus the steps of ``advanceClock(by:)``.
    public var now: Date {
        let base = clock()
        return state.withLock { base.addingTimeInterval($0.clockOffset) }
    }

    /// Moves the stub's clock `seconds` forward, as an interaction's `after:` says time passes:
    /// tokens it minted before may now be expired, and an interaction written `after:` that
    /// much answers next.
    ///
    /// ```swift
    /// _ = try await session.data(for: login)       // tokens minted now, exp in 900 s
    /// stub.advanceClock(by: 901)
    /// _ = try await session.data(for: me)          // the contract's "after: 901s" answer: 401
    /// ```
    public func advanceClock(by seconds: TimeInterval) {
        state.withLock { $0.clockOffset += Swift.max(0, seconds) }
    }

    /// Seconds ``advanceClock(by:)`` moved the clock since the stub was made or reset.
    public var clockSteps: TimeInterval {
        state.withLock { $0.clockOffset }
    }

    /// Answers `request`.
    public func respond(to request: ContractRequest) -> ContractResponse {
        exchange(request).response
    }

    /// Answers `request` and returns the whole exchange, with the deliveries the answering
    /// interaction sent (also on ``deliveries`` and to the ``onDelivery(_:)`` handlers,
    /// which run before this returns).
    ///
    /// ```swift
    /// let exchange = stub.exchange(ContractRequest(method: "POST", target: "/password/reset", body: body))
    /// exchange.deliveries.first?.json?["token"]
    /// ```
    public func exchange(_ request: ContractRequest) -> Exchange {
        let exchange = answer(request)
        deliveryHub.publish(exchange.deliveries)
        return exchange
    }

    /// What the first, locked step of an answer decided: the whole exchange (a fault's
    /// replacement, or no interaction fits), or the response to build.
    private enum Decision {
        case answered(Exchange)
        case build(entry: Entry, spec: ResponseSpec, time: Date, fault: StubFault?)
    }

    /// Chooses the interaction and takes what it uses under the lock, builds its response
    /// (a signature, random values) outside it, so that concurrent requests are built in
    /// parallel, and records the exchange under the lock again. The interaction counts as
    /// answered from the first step: a concurrent request gets the next one.
    private func answer(_ request: ContractRequest) -> Exchange {
        let parsed = ParsedRequest(request)
        let base = clock()
        let decision = state.withLock { state -> Decision in
            let time = base.addingTimeInterval(state.clockOffset)
            var best: (entry: Entry, score: Int, after: Double, distance: Int, fit: RequestFit)?
            // What each file's interactions know, made once per file for this request.
            var knownByFile: [String: [String: JSONValue]] = [:]
            for position in index.candidates(for: parsed) {
                let entry = entries[position]
                // An interaction that happens later waits for the clock to move that far.
                let after = entry.interaction.after ?? 0
                if after > 0, time.timeIntervalSince(state.lastAnsweredAt[entry.contract.file] ?? state.startedAt) < after { continue }
                let file = entry.contract.file
                let known = knownByFile[file] ?? known(state, file)
                knownByFile[file] = known
                var matcher = RequestMatcher(known: known, now: time, acceptedSteps: state.acceptedSteps, passkeys: state.passkeys)
                guard case .success(let fit) = matcher.fit(entry.interaction.request, parsed) else { continue }
                // Equal fits: the next one after the last answered in the same file wins,
                // so a replayed request gets the answer its file gives a replay.
                let count = entry.contract.interactions.count
                let distance = state.lastAnswered[entry.contract.file].map { (entry.index - $0 - 1 + count) % count } ?? entry.index
                // Among equal fits, one whose time has come goes first.
                if let current = best, (fit.score, after, -distance) <= (current.score, current.after, -current.distance) { continue }
                best = (entry, fit.score, after, distance, fit)
            }
            // A fault the test injected: one that replaces the answer leaves the state untouched.
            let fault = hooks.takeFault(for: request, interaction: best?.entry.interaction.name)
            if let fault, let replacement = fault.replacement {
                let exchange = Exchange(request: request, response: replacement, interaction: nil, fault: fault)
                state.exchanges.append(exchange)
                return .answered(exchange)
            }
            guard let best else {
                // Nothing fits: look at every interaction for the closest one to name.
                var closest: (entry: Entry, difference: Difference)?
                for entry in entries {
                    var matcher = RequestMatcher(
                        known: known(state, entry.contract.file), now: time, acceptedSteps: state.acceptedSteps, passkeys: state.passkeys)
                    if case .failure(let difference) = matcher.fit(entry.interaction.request, parsed), difference.weight > 0,
                        closest == nil || difference.weight > (closest?.difference.weight ?? 0)
                    {
                        closest = (entry, difference)
                    }
                }
                let unmatched = Unmatched(
                    request: request, closest: closest?.entry.label,
                    difference: closest?.difference.text ?? "no interaction has method \(request.method)"
                )
                let response = Self.notStubbed(unmatched)
                state.unmatched.append(unmatched)
                let exchange = Exchange(request: request, response: response, interaction: nil, fault: fault)
                state.exchanges.append(exchange)
                return .answered(exchange)
            }
            // The codes it took are used: the same steps are a replay from now on.
            for used in best.fit.codeSteps {
                state.acceptedSteps[used.totp] = Swift.max(state.acceptedSteps[used.totp] ?? used.step, used.step)
            }
            // So are the credentials: a new passkey, a counter that moved.
            for change in best.fit.passkeyChanges { state.passkeys.apply(change) }
            let file = best.entry.contract.file
            // What the request sent is saved first: the answer may repeat it.
            let sent = best.entry.interaction.captures(request: request, response: nil).values
            state.variables[file, default: [:]].merge(sent) { _, new in new }
            state.lastAnswered[file] = best.entry.index
            state.lastAnsweredAt[file] = time
            var saved = state.variables[file] ?? [:]
            if let base = request.baseURL { saved[Template.requestBaseURL] = .string(base) }
            let spec = best.entry.interaction.response.resolved(with: saved).spec
            return .build(entry: best.entry, spec: spec, time: time, fault: fault)
        }
        switch decision {
        case .answered(let exchange): return exchange
        case .build(let entry, let spec, let time, let fault): return respond(to: request, with: entry, spec, at: time, fault: fault)
        }
    }

    /// The second and third steps of ``answer(_:)``: the response built, then recorded.
    private func respond(to request: ContractRequest, with entry: Entry, _ spec: ResponseSpec, at time: Date, fault: StubFault?) -> Exchange
    {
        let response: ContractResponse
        do {
            response = try Self.build(spec, generator: ResponseGenerator(signer: signer, now: time))
        } catch {
            // Checked when the stub was made; kept as a 501 rather than a crash.
            response = Self.notStubbed(Unmatched(request: request, closest: entry.label, difference: "\(error)"))
        }
        hooks.recordUse(entry.contract, entry.interaction)
        return state.withLock { state in
            let file = entry.contract.file
            // What the answer holds is saved before the client has it, so its next request finds it.
            let captured = entry.interaction.captures(request: nil, response: response).values
            state.variables[file, default: [:]].merge(captured) { _, new in new }
            let deliveries = deliver(entry.interaction, in: file, now: time, state: &state)
            let exchange = Exchange(
                request: request, response: response, interaction: entry.interaction.name, deliveries: deliveries, fault: fault)
            state.exchanges.append(exchange)
            return exchange
        }
    }

    /// The deliveries `interaction` sends, built with the file's saved values; what they
    /// `save` joins those values (so a later request can carry a delivered token back).
    private func deliver(_ interaction: Interaction, in file: String, now: Date, state: inout State) -> [StubDelivery] {
        var deliveries: [StubDelivery] = []
        for delivery in interaction.delivers {
            let spec = delivery.resolved(with: state.variables[file] ?? [:]).delivery
            // Checked when the stub was made, as the answers are.
            guard let built = try? Self.build(spec, of: interaction.name, generator: ResponseGenerator(signer: signer, now: now)) else {
                continue
            }
            state.variables[file, default: [:]].merge(spec.captures(from: built.request).values) { _, new in new }
            deliveries.append(built)
        }
        return deliveries
    }

    private static func build(_ delivery: Delivery, of interaction: String, generator: ResponseGenerator) throws -> StubDelivery {
        var headers: [(name: String, value: String)] = []
        for name in delivery.headers.keys.sorted() {
            guard let matcher = delivery.headers[name] else { continue }
            let value = try generator.value(for: matcher, at: "delivery header \(name)")
            headers.append((name, value.text))
        }
        var body = Data()
        if let matcher = delivery.body {
            body = Data(try generator.value(for: matcher, at: "delivery $").description.utf8)
            if !headers.contains(where: { $0.name == "content-type" }) { headers.append(("content-type", "application/json")) }
        }
        return StubDelivery(method: delivery.method, path: delivery.path.text, headers: headers, body: body, interaction: interaction)
    }

    /// What the stub knows in `file`: its saved values and the environment's.
    private func known(_ state: State, _ file: String) -> [String: JSONValue] {
        let saved = state.variables[file] ?? [:]
        return environment.isEmpty ? saved : saved.merging(environment) { saved, _ in saved }
    }

    private static func build(_ spec: ResponseSpec, generator: ResponseGenerator) throws -> ContractResponse {
        var headers: [(name: String, value: String)] = []
        for name in spec.headers.keys.sorted() {
            guard let matcher = spec.headers[name] else { continue }
            let value = try generator.value(for: matcher, at: "header \(name)")
            headers.append((name, value.text))
        }
        if let location = spec.location, spec.headers["location"] == nil {
            headers.append(("location", try location.built { try generator.value(for: $0, at: $1).text }))
        }
        for name in spec.cookies.keys.sorted() {
            guard let cookie = spec.cookies[name] else { continue }
            headers.append(("set-cookie", try cookie.header(name: name) { try generator.value(for: $0, at: $1) }))
        }
        var body = Data()
        switch spec.body {
        case .unspecified:
            break
        case .json(let matcher):
            body = Data(try generator.value(for: generator.bindingAccessTokenHashes(matcher), at: "$").description.utf8)
            if !headers.contains(where: { $0.name == "content-type" }) { headers.append(("content-type", "application/json")) }
        case .text(let matcher):
            let value = try generator.value(for: matcher, at: "body")
            body = Data(value.text.utf8)
        case .form(let form):
            body = try form.encoded { field in
                try generator.value(for: field.value, at: "form \(field.name)").text
            }
            if !headers.contains(where: { $0.name == "content-type" }) { headers.append(("content-type", FormBody.contentType)) }
        }
        return ContractResponse(status: spec.status, headers: headers, body: body)
    }

    private static func notStubbed(_ unmatched: Unmatched) -> ContractResponse {
        let body = JSONValue.object([
            "error": .string("not_stubbed"),
            "error_description": .string("No contract interaction matches this request. \(unmatched.description)"),
        ])
        return ContractResponse(status: 501, headers: [("content-type", "application/json")], body: Data(body.description.utf8))
    }
}
