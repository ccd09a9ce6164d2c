import ContractRunner
import ContractTestSupport
import Foundation
import ProcessKit
import Testing

/// `contract verify` with `{{delivery_url}}` against `contract stub --deliver-to`: the
/// provider is the stub server itself, posting its deliveries to the verifier's receiver.
@Suite struct DeliveryCLITests {
    static let reset = """
        name: Reset
        interactions:
          - name: a reset is requested
            request: { method: POST, path: /password/reset, json: { username: alice } }
            response: { status: 202 }
            delivers:
              - path: /deliveries
                json: { kind: password_reset, token: { match: string, min_length: 32 }, username: alice }
                within: 30
                save: { reset: $.token }
          - name: the delivered token resets the password
            request: { method: POST, path: /password/reset/confirm, json: { token: "{{reset}}", new_password: a new passphrase } }
            response: { status: 204 }
        """

    static let health = """
        name: Health
        interactions:
          - name: health
            request: { method: GET, path: /health.json }
            response: { status: 200, json: { status: ok } }
        """

    static func provider(deliverTo: String) -> String {
        """
        provider:
          command: "{{env.CONTRACT}} stub {{env.CONTRACT_TEST_ROOT}} --port {{port}} --deliver-to \(deliverTo)"
          ready: /health.json
          base_url: http://127.0.0.1:{{port}}
          startup_timeout: 30
        """
    }

    /// Runs `contract verify`, waiting for it without holding a thread (a verify takes seconds).
    func verify(deliverTo: String, contract: String = reset, arguments: [String] = []) async throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let served = try TemporaryFolder("contract-deliveries-served", files: ["reset.yaml": Self.reset, "health.yaml": Self.health])
        defer { served.remove() }
        let contracts = try TemporaryFolder(
            "contract-deliveries", files: ["contract.yaml": Self.provider(deliverTo: deliverTo), "reset.yaml": contract])
        defer { contracts.remove() }
        var environment = ProcessInfo.processInfo.environment
        environment["CONTRACT_TEST_ROOT"] = served.url.path
        environment["CONTRACT"] = try ContractCLITests.binary("contract")
        let child = try ChildProcess(
            executable: try ContractCLITests.binary("contract"), arguments: ["verify", contracts.url.path, "--no-color"] + arguments,
            environment: environment
        )
        let status = await child.waitForExit()
        return (status, child.standardOutput, child.standardError)
    }

    @Test func theStubServerDeliversToTheVerifiersReceiver() async throws {
        let result = try await verify(deliverTo: "{{delivery_url}}")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("✓ a reset is requested  [live ✓ stub ✓ agreement ✓]"))
        #expect(result.stdout.contains("✓ the delivered token resets the password  [live ✓ stub ✓ agreement ✓]"))
    }

    /// A fixed `--delivery-port`, for a provider configured before verify starts (one of
    /// `--base-url`): the receiver listens there.
    @Test func theReceiverListensOnTheDeliveryPortGiven() async throws {
        let port = try ProviderProcess.freePort()
        let result = try await verify(deliverTo: "http://127.0.0.1:\(port)", arguments: ["--delivery-port", String(port)])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("✓ a reset is requested  [live ✓ stub ✓ agreement ✓]"))
    }

    @Test func deliveriesSentElsewhereFailLive() async throws {
        // Port 9 (discard): the stub server's post fails, which it logs and survives.
        let contract = Self.reset.replacingOccurrences(of: "within: 30", with: "within: 1")
        let result = try await verify(deliverTo: "http://127.0.0.1:9", contract: contract)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("✗ a reset is requested  [live ✗ stub ✓ agreement ✓]"))
        #expect(
            result.stdout.contains(
                "live delivery POST /deliveries\n        - expected: a delivery within 1 s\n        + actual:   no delivery to POST /deliveries within 1 s"
            ))
    }

    @Test func lintReportsABrokenDelivery() async throws {
        let folder = try TemporaryFolder(
            "contract-deliveries-lint", files: ["r.yaml": Self.reset.replacingOccurrences(of: "within: 30", with: "within: 0")])
        defer { folder.remove() }
        let child = try ChildProcess(executable: try ContractCLITests.binary("contract"), arguments: ["lint", folder.url.path])
        #expect(await child.waitForExit() == 2)
        #expect(child.standardError.contains("r.yaml:9:"))
        #expect(child.standardError.contains("within must be a positive number of seconds, not 0"))
    }
}
