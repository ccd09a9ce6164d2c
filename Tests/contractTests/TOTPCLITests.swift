import ContractTestSupport
import Foundation
import ProcessKit
import Testing

/// `totp` matchers through the command line: verify against the toy's TOTP, the notes of
/// the Pact export, lint's file:line.
@Suite struct TOTPCLITests {
    /// Runs `contract`, waiting for it without holding a thread.
    func contract(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let child = try ChildProcess(executable: try ContractCLITests.binary("contract"), arguments: arguments)
        let status = await child.waitForExit()
        return (status, child.standardOutput, child.standardError)
    }

    @Test func verifySendsCodesTheProviderTakesAndPactIsToldItCannot() async throws {
        let folder = try TemporaryFolder("contract-totp", files: ["totp.yaml": ToyProvider.totpContract])
        defer { folder.remove() }
        let path = folder.url.path
        let result = try await ToyProvider.withRunning { url in
            try await contract(["verify", path, "--base-url", url, "--no-color"])
        }
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("✓ the first code again is refused  [live ✓ stub ✓ agreement ✓]"))
        #expect(result.stdout.contains("5 interactions: live 5/5, stub 5/5, agreement 5/5"), "\(result.stdout)")

        let pact = try await contract(["export", "pact", path, "--consumer", "app", "--provider", "toy", "--out", path + "/toy.pact.json"])
        #expect(pact.status == 0, "\(pact.stderr)")
        #expect(
            pact.stderr.contains(
                ":a code of the key logs in: request $.code is a TOTP code of {{totp_secret}}: Pact cannot compute one, so the verifier sends the example 123456, which a provider refuses (contract verify sends a valid code)\n"
            ),
            "\(pact.stderr)"
        )
        let openapi = try await contract(["export", "openapi", path, "--out", path + "/openapi.json"])
        #expect(openapi.status == 0, "\(openapi.stderr)")
        #expect(try String(contentsOfFile: path + "/openapi.json", encoding: .utf8).contains("^[0-9]{6}$"))
    }

    @Test func lintNamesTheFileAndLineOfABrokenCode() async throws {
        let broken = ToyProvider.totpContract.replacingOccurrences(
            of: #"{ code: { match: totp, secret: "{{totp_secret}}" } } }"#,
            with: #"{ code: { match: totp, secret: "{{totp_secret}}", digits: 4 } } }"#
        )
        let folder = try TemporaryFolder("contract-totp-lint", files: ["totp.yaml": broken])
        defer { folder.remove() }
        let result = try await contract(["lint", folder.url.path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("totp.yaml:12:"), "\(result.stderr)")
        #expect(result.stderr.contains("totp.yaml:16:"))
        #expect(result.stderr.contains("digits must be from 6 to 8"))
    }
}
