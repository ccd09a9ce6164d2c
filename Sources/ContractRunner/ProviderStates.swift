import AsyncHTTPClient
import ContractKit
import Foundation
import NIOCore
import ProcessKit

/// Sets up provider states as `contract.yaml` says: by running a shell command (parameters
/// substituted shell-quoted, `stdin` piped in) or by POSTing `{"state", "params"}` to a URL;
/// and moves the provider's clock forward through its `clock:` hook (``advanceClock(by:)``).
///
/// ```swift
/// let states = ProviderStates(setups: provider.states, variables: ["port": .string("8080")])
/// try await states.setUp(ProviderStateUse(state: "user exists", params: ["username": .string("alice")]))
/// ```
public struct ProviderStates: Sendable {
    /// A state that could not be set up.
    public struct SetupError: Error, CustomStringConvertible {
        /// What failed, with the end of the command's output.
        public let description: String
    }

    /// How to set up each state.
    public let setups: [String: StateSetup]
    /// Values for `{{…}}` besides the parameters (`port`, `env.NAME`).
    public let variables: [String: JSONValue]
    /// The HTTP client for URL set-ups.
    public let client: HTTPClient
    /// How the provider's clock moves; nil when `contract.yaml` declares no `clock:`.
    public let clock: ClockHook?
    /// The provider's base URL, which a clock hook's path is relative to.
    public let baseURL: String?

    /// Creates a state runner.
    public init(
        setups: [String: StateSetup], variables: [String: JSONValue], client: HTTPClient = .contracts, clock: ClockHook? = nil, baseURL: String? = nil
    ) {
        self.setups = setups
        self.variables = variables
        self.client = client
        self.clock = clock
        self.baseURL = baseURL
    }

    /// Moves the provider's clock `seconds` forward through the `clock:` hook: runs its
    /// command with `{{seconds}}`, or POSTs `{"advance": seconds}` to its URL.
    /// - Throws: ``SetupError`` when there is no hook or it failed.
    public func advanceClock(by seconds: Double) async throws {
        guard let clock else {
            throw SetupError(description: "an interaction happens after: \(Self.describe(seconds)) and contract.yaml declares no clock: hook to move the provider's clock")
        }
        let values = variables.merging(["seconds": Self.number(seconds)]) { _, new in new }
        do {
            switch clock {
            case .command(let command):
                let script = try command.render(values.mapValues { value in
                    if case .string(let text) = value { return .string(Self.shellQuote(text)) }
                    return value
                })
                let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", script], mergeErrors: true)
                let status = await child.waitForExit()
                guard status == 0 else {
                    throw SetupError(description: "moving the provider's clock failed (exit \(status)): \(String(child.standardOutput.suffix(500)).trimmingCharacters(in: .whitespacesAndNewlines))")
                }
            case .url(let template):
                var url = try template.render(values)
                if url.hasPrefix("/"), let baseURL { url = (baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL) + url }
                var request = HTTPClientRequest(url: url)
                request.method = .POST
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(string: JSONValue.object(["advance": Self.number(seconds)]).description))
                let response = try await client.execute(request, timeout: .seconds(30))
                guard (200..<300).contains(Int(response.status.code)) else {
                    throw SetupError(description: "moving the provider's clock failed: \(url) answered \(response.status.code)")
                }
            }
        } catch let error as SetupError {
            throw error
        } catch {
            throw SetupError(description: "moving the provider's clock failed: \(error)")
        }
    }

    /// Whole seconds as an integer, others as a number.
    private static func number(_ seconds: Double) -> JSONValue {
        seconds.rounded() == seconds && abs(seconds) < 1e15 ? .integer(Int(seconds)) : .number(seconds)
    }

    static func describe(_ seconds: Double) -> String {
        "\(number(seconds))s"
    }

    /// Sets up each of `uses` in order with `states`.
    /// - Throws: ``SetupError``, also when a state is needed and `states` is nil (contract.yaml defines none).
    public static func setUp(_ uses: [ProviderStateUse], with states: ProviderStates?) async throws {
        for use in uses {
            guard let states else {
                throw SetupError(description: "provider state '\(use.state)' is needed but contract.yaml defines no states")
            }
            try await states.setUp(use)
        }
    }

    /// Moves the provider's clock `seconds` forward with `states`' hook.
    /// - Throws: ``SetupError``, also when `states` is nil (no `contract.yaml`).
    public static func advanceClock(by seconds: Double, with states: ProviderStates?) async throws {
        guard let states else {
            throw SetupError(description: "an interaction happens after: \(describe(seconds)) and there is no contract.yaml with a clock: hook to move the provider's clock")
        }
        try await states.advanceClock(by: seconds)
    }

    /// Sets up `use`.
    public func setUp(_ use: ProviderStateUse) async throws {
        guard let setup = setups[use.state] else {
            throw SetupError(description: "no set-up for provider state '\(use.state)' in contract.yaml")
        }
        let plain = variables.merging(use.params) { _, param in param }
        switch setup {
        case .command(let command, let stdin):
            let quoted = plain.mapValues { value -> JSONValue in
                let text: String
                if case .string(let string) = value { text = string } else { text = value.description }
                return .string(Self.shellQuote(text))
            }
            let script = try render(command, quoted, use)
            let input = try stdin.map { try render($0, plain, use) }
            let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", script], input: input, mergeErrors: true)
            let status = await child.waitForExit()
            guard status == 0 else {
                throw SetupError(description: "setting up '\(use.state)' failed (exit \(status)): \(String(child.standardOutput.suffix(500)).trimmingCharacters(in: .whitespacesAndNewlines))")
            }
        case .url(let url):
            var request = HTTPClientRequest(url: try render(url, plain, use))
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            let body = JSONValue.object(["state": .string(use.state), "params": .object(use.params)])
            request.body = .bytes(ByteBuffer(string: body.description))
            let response = try await client.execute(request, timeout: .seconds(30))
            guard (200..<300).contains(Int(response.status.code)) else {
                throw SetupError(description: "setting up '\(use.state)' failed: the state URL answered \(response.status.code)")
            }
        }
    }

    private func render(_ template: Template, _ values: [String: JSONValue], _ use: ProviderStateUse) throws -> String {
        do {
            return try template.render(values)
        } catch {
            throw SetupError(description: "state '\(use.state)': \(error) (give it in params)")
        }
    }

    /// `text` as one single-quoted shell word.
    static func shellQuote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
