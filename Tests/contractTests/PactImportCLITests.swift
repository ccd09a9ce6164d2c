import Foundation
import ProcessKit
import Testing

/// `contract import pact`: Pact files from three consumers (specification v2, v3 and v4)
/// become contracts that verify against the built authd, live, on the stub and in agreement.
@Suite struct PactImportCLITests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let pacts = ["ios-app-authd.json", "web-app-authd.json", "legacy-app-authd.json"]
        .map { root.appendingPathComponent("Examples/pacts/\($0)").path }

    func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await AuthdContractTests.contract(arguments)
    }

    @Test func consumersPactsBecomeContractsThatVerifyAgainstAuthd() async throws {
        let temporary = try TemporaryFolder("pact-import")
        defer { temporary.remove() }
        let out = temporary.appending("out")

        let imported = try await run(["import", "pact"] + Self.pacts + ["--out", out.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        // One file per consumer, and the states contract.yaml must define.
        #expect(imported.stdout.contains("ios-app.yaml: 3 interactions of ios-app → authd from"))
        #expect(imported.stdout.contains("web-app.yaml: 2 interactions of web-app → authd from"))
        #expect(imported.stdout.contains("legacy-app.yaml: 2 interactions of legacy-app → authd from"))
        #expect(
            imported.stdout.contains(
                "Provider states to define in \(out.path)/contract.yaml before `contract verify \(out.path)`: 'user exists'"))
        // What does not carry over is named with its file and interaction.
        #expect(
            imported.stderr.contains(
                "web-app-authd.json:a login event is published: a Asynchronous/Messages interaction is not a synchronous HTTP one: not imported"
            ))
        #expect(
            imported.stderr.contains(
                "ios-app-authd.json:a login with valid credentials: generator RandomString at response body $.refresh_token dropped"))

        try FileManager.default.copyItem(
            at: AuthdContractTests.contracts.appendingPathComponent("contract.yaml"), to: out.appendingPathComponent("contract.yaml")
        )
        let again = try await run(["import", "pact"] + Self.pacts + ["--out", out.path])
        #expect(!again.stdout.contains("Provider states to define"))

        let verified = try await run(["verify", out.path, "--no-color", "--no-build"])
        #expect(verified.status == 0, "\(verified.stdout)\n\(verified.stderr)")
        #expect(verified.stdout.contains("7 interactions: live 7/7, stub 7/7, agreement 7/7\n7 passed, 0 failed\n"))
    }

    @Test func aFileThatIsNotAPactExits2() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-pact-\(UUID().uuidString.prefix(8)).json")
        try Data(#"{"consumer": {"name": "x"}}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await run(["import", "pact", file.path, "--out", FileManager.default.temporaryDirectory.path])
        #expect(result.status == 2)
        #expect(result.stderr == "\(file.path): not a Pact file: it has no 'interactions' list\n")
    }
}
