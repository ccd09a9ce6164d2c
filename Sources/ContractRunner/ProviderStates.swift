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
        setups: [String: StateSetup], variables: [String: JSONValue], client: HTTPClient = .contracts, clock: ClockHook? = nil,
        baseURL: String? = nil
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
            throw SetupError(
                description:
                    "an interaction happens after: \(Self.describe(seconds)) and contract.yaml declares no clock: hook to move the provider's clock"
            )
        }
        let values = variables.merging(["seconds": JSONValue.numeric(seconds)]) { _, new in new }
        let failure = "moving the provider's clock failed"
        do {
            switch clock {
            case .command(let command):
                try await runShell(try command.render(Self.shellQuoted(values)), input: nil, failure: failure)
            case .url(let template):
                var url = try template.render(values)
                if url.hasPrefix("/"), let baseURL { url = (baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL) + url }
                try await post(["advance": JSONValue.numeric(seconds)], to: url, naming: url, failure: failure)
            }
        } catch let error as SetupError {
            throw error
        } catch {
            throw SetupError(description: "moving the provider's clock failed: \(error)")
        }
    }

    static func describe(_ seconds: Double) -> String {
        "\(JSONValue.numeric(seconds))s"
    }

    /// Sets up each of `uses` in order with `states`.
    /// - Throws: ``SetupError``, also when a state is needed and `states` is nil (contract.yaml defines none).
    @discardableResult
    public static func setUp(_ uses: [ProviderStateUse], with states: ProviderStates?) async throws -> [String: JSONValue] {
        var saved: [String: JSONValue] = [:]
        for use in uses {
            guard let states else {
                throw SetupError(description: "provider state '\(use.state)' is needed but contract.yaml defines no states")
            }
            saved.merge(try await states.setUp(use)) { _, new in new }
        }
        return saved
    }

    /// Moves the provider's clock `seconds` forward with `states`' hook, and the run's TOTP
    /// `codes` with it (they are of the provider's time).
    /// - Throws: ``SetupError``, also when `states` is nil (no `contract.yaml`).
    public static func advanceClock(by seconds: Double, with states: ProviderStates?, codes: TOTPCodeGenerator) async throws {
        codes.advanceClock(by: seconds)
        guard let states else {
            throw SetupError(
                description:
                    "an interaction happens after: \(describe(seconds)) and there is no contract.yaml with a clock: hook to move the provider's clock"
            )
        }
        try await states.advanceClock(by: seconds)
    }

    /// Sets up `use`; returns the values of its `saves`, from the set-up's answer, each checked
    /// against what `use` expects of it.
    @discardableResult
    public func setUp(_ use: ProviderStateUse) async throws -> [String: JSONValue] {
        guard let setup = setups[use.state] else {
            throw SetupError(description: "no set-up for provider state '\(use.state)' in contract.yaml")
        }
        let plain = variables.merging(use.params) { _, param in param }
        let failure = "setting up '\(use.state)' failed"
        let answer: String
        switch setup {
        case .command(let command, let stdin):
            let script = try render(command, Self.shellQuoted(plain), use)
            answer = try await runShell(
                script, input: try stdin.map { try render($0, plain, use) }, failure: failure, keepOutput: !use.saves.isEmpty)
        case .url(let url):
            answer = try await post(
                ["state": .string(use.state), "params": .object(use.params)], to: try render(url, plain, use), naming: "the state URL",
                failure: failure)
        }
        guard !use.saves.isEmpty else { return [:] }
        guard case .object(let values)? = try? JSONValue(parsing: Data(answer.utf8)) else {
            throw SetupError(
                description: "\(failure): its answer is not a JSON object of \(use.saves.joined(separator: ", ")): \(answer.prefix(200))")
        }
        var saved: [String: JSONValue] = [:]
        for name in use.saves {
            guard let value = values[name] else { throw SetupError(description: "\(failure): its answer has no '\(name)'") }
            if let mismatch = use.expected[name]?.mismatches(in: value, at: name).first {
                throw SetupError(description: "\(failure): its answer's \(mismatch)")
            }
            saved[name] = value
        }
        return saved
    }

    /// Runs `script` with `sh -c`, `input` on its standard input; returns its standard output
    /// when it is kept apart (`keepOutput`), else "".
    /// - Throws: ``SetupError`` `failure (exit N): the end of its output` when it fails.
    @discardableResult
    private func runShell(_ script: String, input: String?, failure: String, keepOutput: Bool = false) async throws -> String {
        let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", script], input: input, mergeErrors: !keepOutput)
        let status = await child.waitForExit()
        guard status == 0 else {
            let output = keepOutput ? child.standardError : child.standardOutput
            throw SetupError(
                description: "\(failure) (exit \(status)): \(String(output.suffix(500)).trimmingCharacters(in: .whitespacesAndNewlines))"
            )
        }
        return keepOutput ? child.standardOutput : ""
    }

    /// POSTs `body` as JSON to `url`; returns the answer's body.
    /// - Throws: ``SetupError`` `failure: NAME answered N` for a status outside 2xx.
    @discardableResult
    private func post(_ body: JSONValue, to url: String, naming name: String, failure: String) async throws -> String {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: body.description))
        let response = try await client.execute(request, timeout: .seconds(30))
        guard (200..<300).contains(Int(response.status.code)) else {
            throw SetupError(description: "\(failure): \(name) answered \(response.status.code)")
        }
        return String(buffer: try await response.body.collect(upTo: 1024 * 1024))
    }

    /// `values` as single-quoted shell words (a value that is not a string as its JSON text).
    private static func shellQuoted(_ values: [String: JSONValue]) -> [String: JSONValue] {
        values.mapValues { value in
            if case .string(let text) = value { return .string(shellQuote(text)) }
            return .string(shellQuote(value.description))
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
