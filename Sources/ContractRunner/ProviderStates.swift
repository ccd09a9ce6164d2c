import AsyncHTTPClient
import ContractKit
import Foundation
import NIOCore
import ProcessKit

/// Sets up provider states as `contract.yaml` says: by running a shell command (parameters
/// substituted shell-quoted, `stdin` piped in) or by POSTing `{"state", "params"}` to a URL.
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

    /// Creates a state runner.
    public init(setups: [String: StateSetup], variables: [String: JSONValue], client: HTTPClient = .contracts) {
        self.setups = setups
        self.variables = variables
        self.client = client
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
