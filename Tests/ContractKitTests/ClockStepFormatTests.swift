import ContractEvolution
import ContractKit
import Foundation
import ProcessKit
import Testing

/// `after:` on an interaction and `clock:` in contract.yaml.
@Suite struct ClockStepFormatTests {
    static func contract(after: String) -> String {
        """
        name: Later
        interactions:
          - name: now
            request: { method: GET, path: /a }
            response: { status: 200 }
          - name: later
            after: \(after)
            request: { method: GET, path: /a }
            response: { status: 401 }
        """
    }

    @Test(arguments: [("901s", 901.0), ("901", 901), ("15m", 900), ("2h", 7200), ("30d", 2_592_000), ("0.5s", 0.5)])
    func afterReadsATimeSpan(text: String, seconds: Double) throws {
        let (contract, diagnostics) = ContractLoader.parse(yaml: Self.contract(after: text), file: "later.yaml")
        #expect(diagnostics == [])
        let interactions = try #require(contract?.interactions)
        #expect(interactions.map(\.after) == [nil, seconds])
    }

    @Test(arguments: ["0s", "-5s", "soon", "5y", "3650000d", "[1]"])
    func aBadSpanIsDiagnosedOnItsLine(text: String) {
        let (contract, diagnostics) = ContractLoader.parse(yaml: Self.contract(after: text), file: "later.yaml")
        #expect(contract == nil)
        #expect(diagnostics.map(\.line) == [7])
        #expect(diagnostics.first?.message.contains("after") == true)
    }

    @Test func theClockHookIsACommandOrAURL() {
        let (url, urlProblems) = ContractLoader.parseProvider(yaml: "clock:\n  url: /test/clock\n", file: "contract.yaml")
        #expect(urlProblems == [])
        #expect(url?.clock == .url(Template("/test/clock")))
        let (command, commandProblems) = ContractLoader.parseProvider(
            yaml: "clock:\n  command: tool advance {{seconds}}\n", file: "contract.yaml")
        #expect(commandProblems == [])
        #expect(command?.clock == .command(Template("tool advance {{seconds}}")))
        let (none, _) = ContractLoader.parseProvider(yaml: "states: {}\n", file: "contract.yaml")
        #expect(none?.clock == nil)
    }

    @Test(arguments: [
        ("clock:\n  url: /a\n  command: b\n", "clock needs either command or url, not both"),
        ("clock: {}\n", "clock needs a command or a url"),
        ("clock:\n  path: /a\n", "unknown key 'path'"),
    ])
    func aBrokenClockHookIsDiagnosed(yaml: String, message: String) {
        let (configuration, problems) = ContractLoader.parseProvider(yaml: yaml, file: "contract.yaml")
        #expect(configuration == nil)
        #expect(problems.contains { $0.message.contains(message) }, "\(problems)")
    }

    @Test func aStepWithoutAHookInContractYAMLIsDiagnosedOnItsInteraction() throws {
        let temporary = try TemporaryFolder("clock")
        defer { temporary.remove() }
        try Self.contract(after: "901s").write(to: temporary.url.appendingPathComponent("later.yaml"), atomically: true, encoding: .utf8)
        try "states: {}\n".write(to: temporary.url.appendingPathComponent("contract.yaml"), atomically: true, encoding: .utf8)
        let suite = ContractLoader.load(directory: temporary.url.path)
        #expect(suite.diagnostics.map(\.line) == [6])
        #expect(suite.diagnostics.first?.message.contains("declares no clock: hook") == true)
        try "clock: { url: /test/clock }\n".write(
            to: temporary.url.appendingPathComponent("contract.yaml"), atomically: true, encoding: .utf8)
        #expect(ContractLoader.load(directory: temporary.url.path).diagnostics == [])
    }

    @Test func aChangedStepBreaks() throws {
        let old = try #require(ContractLoader.parse(yaml: Self.contract(after: "901s"), file: "later.yaml").0)
        let new = try #require(ContractLoader.parse(yaml: Self.contract(after: "3601s"), file: "later.yaml").0)
        let changes = ContractDiff.changes(old: [old], new: [new])
        #expect(changes.map { "\($0.path): \($0.impact.rawValue)" } == ["after: breaking"])
        #expect(changes.first?.reason.hasPrefix("after: 901s → after: 3601s") == true)
    }
}
