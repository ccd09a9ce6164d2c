import ContractKit
import ContractRunner
import ContractStub
import ContractTestSupport
import Foundation
import Testing

/// Clock steps in verify: `after:` moves the provider's clock through contract.yaml's hook
/// and the stub's, and the expiry both show agrees.
@Suite struct ClockStepVerificationTests {
    @Test func aStepMovesTheProvidersClockAndTheStubsAndBothAgree() async throws {
        let contract = try loadContract(ToyProvider.clockContract, file: "clock.yaml")
        let report = try await ToyProvider.withRunning { url in
            let states = ProviderStates(setups: [:], variables: [:], clock: .url(Template("/test/clock")), baseURL: url)
            return await ContractVerifier(live: HTTPTransport(baseURL: url), stub: try ContractStub(contracts: [contract]), states: states)
                .verify([contract])
        }
        #expect(report.results.map(\.outcome) == [.passed, .passed, .passed, .passed], "\(TextReport.render(report, color: false))")
        #expect(report.results[2].stubResponse?.status == 401)
    }

    @Test func withoutAStepTheExpiryIsNotSeen() async throws {
        // The same contract without its after: the toy's token still lives, and verify says so.
        let contract = try loadContract(ToyProvider.clockContract.replacingOccurrences(of: "after: 61s", with: ""), file: "clock.yaml")
        let report = try await ToyProvider.withRunning { url in
            await ContractVerifier(live: HTTPTransport(baseURL: url), states: nil).verify([contract])
        }
        guard case .failed(let mismatches)? = report.results[2].live else {
            Issue.record("expected the expiry to fail without the step")
            return
        }
        #expect(mismatches.first == Mismatch(path: "status", expected: "401", actual: "200"))
    }

    @Test func withoutAHookTheLiveSideSaysWhyAndTheStubStillRuns() async throws {
        let contract = try loadContract(ToyProvider.clockContract, file: "clock.yaml")
        let report = try await ToyProvider.withRunning { url in
            let states = ProviderStates(setups: [:], variables: [:])
            return await ContractVerifier(live: HTTPTransport(baseURL: url), stub: try ContractStub(contracts: [contract]), states: states)
                .verify([contract])
        }
        guard case .error(let error)? = report.results[2].live else {
            Issue.record("expected an error, got \(String(describing: report.results[2].live))")
            return
        }
        #expect(error.code == .clockStep)
        #expect(error.description.contains("declares no clock: hook"))
        #expect(report.results[2].stub == .held)
    }

    @Test func aCommandHookGetsTheSeconds() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("clock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("steps").path
        let states = ProviderStates(
            setups: [:], variables: ["out": .string(file)], clock: .command(Template("echo {{seconds}} >> {{out}}")))
        try await states.advanceClock(by: 901)
        try await states.advanceClock(by: 0.5)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "901\n0.5\n")
        let failing = ProviderStates(setups: [:], variables: [:], clock: .command(Template("echo no clock here >&2; exit 4")))
        await #expect(throws: ProviderStates.SetupError.self) { try await failing.advanceClock(by: 1) }
    }

    @Test func codesFollowTheSteps() throws {
        let start = Date(timeIntervalSince1970: 2_000_000_000)
        let codes = TOTPCodeGenerator(now: { start })
        let totp = try TOTP(secret: "JBSWY3DPEHPK3PXP")
        codes.advanceClock(by: 901)
        #expect(try codes.code(for: totp) == totp.code(at: start.addingTimeInterval(901)))
    }
}
