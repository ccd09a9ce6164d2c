import ContractKit
import Foundation
import Synchronization

/// A failure a client's resilience test injects into a ``ContractStub`` with
/// ``ContractStub/inject(_:for:times:)``: the next matching requests get it instead of (or on
/// top of) the contract's answer, `times` times, and then the contract answers again.
///
/// What each transport does with it:
///
/// | fault | URLProtocol (`stub.urlSession`) | local server (`ContractStubServer`) | stub state | usage |
/// |---|---|---|---|---|
/// | `.delay(s)` | the answer comes `s` seconds later (a timer, no thread waits); a request timeout shorter than that fails with `URLError(.timedOut)` | the answer is written `s` seconds later | answered | counts |
/// | `.reset` | `URLError(.networkConnectionLost)` | the connection is closed, nothing written (a plain close: NIO cannot send a TCP reset) | unchanged | does not count |
/// | `.status(503, retryAfter: 2)` | a `503` with `Retry-After: 2` and a JSON error body | the same | unchanged | does not count |
/// | `.truncatedBody` | the head and half the body, then `URLError(.networkConnectionLost)` | `Content-Length` of the whole body, half of it written, then the connection closed | answered | counts |
///
/// A fault that replaces the answer (`reset`, `status`) leaves the stub as if the request
/// never reached it (a refresh token is not used up); one that spoils its delivery (`delay`,
/// `truncatedBody`) comes after the stub answered, as a slow network would.
///
/// ```swift
/// try stub.inject(.status(503, retryAfter: 1), for: "valid credentials return a bearer token pair", times: 2)
/// try stub.inject(.delay(0.2), where: { $0.target.hasPrefix("/me") })
/// ```
public enum StubFault: Sendable, Equatable, CustomStringConvertible {
    /// The answer comes this many seconds late.
    case delay(TimeInterval)
    /// The connection drops before any answer.
    case reset
    /// This status (with `Retry-After: seconds` when given) instead of the contract's answer.
    case status(Int, retryAfter: Int? = nil)
    /// The answer's body is cut in half and the connection drops.
    case truncatedBody

    /// The answer that takes the contract's place (`status`), a placeholder of status 0 for
    /// `reset` (no answer), nil when the contract's answer goes out (`delay`, `truncatedBody`).
    var replacement: ContractResponse? {
        switch self {
        case .delay, .truncatedBody:
            return nil
        case .reset:
            return ContractResponse(status: 0, headers: [], body: Data())
        case .status(let status, let retryAfter):
            var headers: [(name: String, value: String)] = [("content-type", "application/json")]
            if let retryAfter { headers.append(("retry-after", String(retryAfter))) }
            let body = JSONValue.object([
                "error": .string("injected_fault"),
                "error_description": .string("The test injected this answer: status \(status) instead of the contract's."),
            ])
            return ContractResponse(status: status, headers: headers, body: Data(body.description.utf8))
        }
    }

    /// `delay=0.2`, `reset`, `status=503,retry-after=1`, `truncated-body`: the `contract stub --fault` syntax.
    public var description: String {
        switch self {
        case .delay(let seconds): return "delay=\(seconds)"
        case .reset: return "reset"
        case .status(let status, let retryAfter): return "status=\(status)" + (retryAfter.map { ",retry-after=\($0)" } ?? "")
        case .truncatedBody: return "truncated-body"
        }
    }

    /// A fault aimed at an interaction the contracts do not have, or with an impossible setting.
    public struct InjectionError: Error, CustomStringConvertible {
        /// What is wrong.
        public let description: String
    }
}

/// A fault waiting for its requests: what ``ContractStub/pendingFaults`` lists.
public struct PendingFault: Sendable, CustomStringConvertible {
    /// The fault.
    public let fault: StubFault
    /// The interaction it is aimed at, or nil for a predicate on the request.
    public let interaction: String?
    /// How many more matching requests get it.
    public let remaining: Int

    /// `status=503 for 'login' (2 more)`.
    public var description: String {
        "\(fault) for " + (interaction.map { "'\($0)'" } ?? "requests the predicate picks") + " (\(remaining) more)"
    }
}

/// What a stub keeps beside its own state for usage and faults (``ContractStub/usage``,
/// ``ContractStub/inject(_:for:times:)``), under a lock of its own.
final class StubHooks: Sendable {
    struct Rule: Sendable {
        let fault: StubFault
        let interaction: String?
        let predicate: (@Sendable (ContractRequest) -> Bool)?
        var remaining: Int
    }

    struct State: Sendable {
        var interactions: [ContractUsage.Interaction] = []
        var names: Set<String> = []
        var used: Set<ContractUsage.Interaction> = []
        var rules: [Rule] = []
        var usageClient: String? = UsageRegistry.environmentClient
    }

    let state = Mutex(State())

    /// Called once by the stub's initialiser with the interactions it may answer.
    func register(_ interactions: [(contract: Contract, interaction: Interaction)]) {
        let entries = interactions.map { Self.entry($0.contract, $0.interaction) }
        state.withLock {
            $0.interactions = entries
            $0.names = Set(entries.map(\.interaction))
        }
    }

    /// The first injected fault for `request` (answered by `interaction`, nil when none
    /// fits), counted down; nil when none applies.
    func takeFault(for request: ContractRequest, interaction: String?) -> StubFault? {
        state.withLock { state in
            guard !state.rules.isEmpty else { return nil }
            for index in state.rules.indices {
                let rule = state.rules[index]
                let applies = rule.interaction.map { $0 == interaction } ?? (rule.predicate?(request) ?? false)
                guard applies else { continue }
                state.rules[index].remaining -= 1
                if state.rules[index].remaining <= 0 { state.rules.remove(at: index) }
                return rule.fault
            }
            return nil
        }
    }

    /// Notes that `interaction` of `contract` answered; with `CONTRACT_USAGE_DIR` set, the
    /// process's usage file of this stub's client learns it too.
    func recordUse(_ contract: Contract, _ interaction: Interaction) {
        let entry = Self.entry(contract, interaction)
        let (isNew, client) = state.withLock { ($0.used.insert(entry).inserted, $0.usageClient) }
        if isNew, let client, let directory = UsageRegistry.environmentDirectory {
            UsageRegistry.record([entry], client: client, directory: directory)
        }
    }

    static func entry(_ contract: Contract, _ interaction: Interaction) -> ContractUsage.Interaction {
        ContractUsage.Interaction(
            file: contract.file, interaction: interaction.name, method: interaction.request.method, path: interaction.request.path.text)
    }
}
