import ContractKit
import Foundation

extension ContractStub {
    /// Makes the next `times` requests that the interaction named `interaction` would answer
    /// fail with `fault` (``StubFault`` says how each transport
    /// shows it); then the contract answers again. Faults apply in the order injected.
    ///
    /// ```swift
    /// try stub.inject(.status(503, retryAfter: 1), for: "valid credentials return a bearer token pair", times: 1)
    /// let session = try await api.login(username: "alice", password: "correct horse battery staple")   // retried once
    /// ```
    /// - Throws: ``StubFault/InjectionError`` when no interaction of the stub has that name,
    ///   `times` is below 1, or a delay is negative.
    public func inject(_ fault: StubFault, for interaction: String, times: Int = 1) throws {
        try Self.check(fault, times: times)
        let known = hooks.state.withLock { $0.names.contains(interaction) }
        guard known else {
            throw StubFault.InjectionError(description: "no interaction of the stub is named '\(interaction)'")
        }
        hooks.state.withLock { $0.rules.append(StubHooks.Rule(fault: fault, interaction: interaction, predicate: nil, remaining: times)) }
    }

    /// Makes the next `times` requests for which `predicate` holds fail with `fault`, whether
    /// an interaction answers them or not.
    ///
    /// ```swift
    /// try stub.inject(.reset, where: { $0.method == "GET" && $0.target.hasPrefix("/sessions") }, times: 3)
    /// ```
    /// - Throws: ``StubFault/InjectionError`` when `times` is below 1 or a delay is negative.
    public func inject(_ fault: StubFault, where predicate: @escaping @Sendable (ContractRequest) -> Bool, times: Int = 1) throws {
        try Self.check(fault, times: times)
        hooks.state.withLock { $0.rules.append(StubHooks.Rule(fault: fault, interaction: nil, predicate: predicate, remaining: times)) }
    }

    /// The faults still waiting for requests, in the order they apply.
    ///
    /// ```swift
    /// try stub.inject(.status(503), for: "valid credentials return a bearer token pair", times: 5)
    /// _ = try? await api.login(username: "alice", password: "correct horse battery staple")   // gave up after 3 attempts
    /// stub.pendingFaults.first?.remaining   // 2
    /// ```
    public var pendingFaults: [PendingFault] {
        hooks.state.withLock { $0.rules.map { PendingFault(fault: $0.fault, interaction: $0.interaction, remaining: $0.remaining) } }
    }

    /// Drops every fault still waiting.
    public func removeFaults() {
        hooks.state.withLock { $0.rules.removeAll() }
    }

    private static func check(_ fault: StubFault, times: Int) throws {
        guard times >= 1 else { throw StubFault.InjectionError(description: "times must be at least 1, not \(times)") }
        switch fault {
        case .delay(let seconds) where !(seconds >= 0 && seconds.isFinite):
            throw StubFault.InjectionError(description: "a delay must be a finite number of seconds ≥ 0, not \(seconds)")
        case .status(let status, let retryAfter) where !(100...599).contains(status) || (retryAfter ?? 0) < 0:
            throw StubFault.InjectionError(description: "status=\(status): the status must be 100–599 and retry-after ≥ 0")
        default:
            return
        }
    }
}

extension StubFault {
    /// Reads the `contract stub --fault` syntax: `INTERACTION:FAULT[,retry-after=S][,times=N]`
    /// with FAULT one of `delay=SECONDS`, `reset`, `status=CODE`, `truncated-body`
    /// (`'valid credentials return a bearer token pair:status=503,retry-after=1,times=2'`).
    /// The interaction is everything before the last `:` that precedes the fault.
    /// - Returns: the fault, the interaction's name and the count (1 when not given).
    /// - Throws: ``InjectionError`` describing what is wrong.
    public static func parse(_ text: String) throws -> (fault: StubFault, interaction: String, times: Int) {
        guard let colon = text.lastIndex(of: ":") else {
            throw InjectionError(description: "'\(text)': write INTERACTION:FAULT, e.g. 'login:status=503,retry-after=1,times=2'")
        }
        let interaction = String(text[..<colon]).trimmingCharacters(in: .whitespaces)
        guard !interaction.isEmpty else { throw InjectionError(description: "'\(text)': no interaction name before ':'") }
        var fault: StubFault?
        var retryAfter: Int?
        var times = 1
        for part in text[text.index(after: colon)...].split(separator: ",") {
            let pieces = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let key = pieces[0].lowercased()
            let value = pieces.count == 2 ? pieces[1] : nil
            func number<T: LosslessStringConvertible>(_: T.Type) throws -> T {
                guard let value, let parsed = T(value) else { throw InjectionError(description: "'\(text)': \(key) needs a number") }
                return parsed
            }
            switch key {
            case "delay": fault = .delay(try number(Double.self))
            case "reset": fault = .reset
            case "status": fault = .status(try number(Int.self))
            case "truncated-body": fault = .truncatedBody
            case "retry-after": retryAfter = try number(Int.self)
            case "times": times = try number(Int.self)
            default:
                throw InjectionError(
                    description: "'\(text)': unknown '\(key)' (delay=S, reset, status=CODE, truncated-body, retry-after=S, times=N)")
            }
        }
        guard var parsed = fault else {
            throw InjectionError(description: "'\(text)': no fault (delay=S, reset, status=CODE or truncated-body)")
        }
        if let retryAfter {
            guard case .status(let status, _) = parsed else {
                throw InjectionError(description: "'\(text)': retry-after goes with status=CODE")
            }
            parsed = .status(status, retryAfter: retryAfter)
        }
        return (parsed, interaction, times)
    }
}
