import ContractTestSupport
import Foundation
import ProcessKit
import Testing

/// `webauthn_…` matchers through the command line: verify against the toy's passkeys, the
/// notes of the Pact export, an OpenAPI document that openapi-spec-validator takes, lint's
/// file:line.
@Suite struct WebAuthnCLITests {
    /// Runs `contract`, waiting for it without holding a thread.
    func contract(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let child = try ChildProcess(executable: try ContractCLITests.binary("contract"), arguments: arguments)
        let status = await child.waitForExit()
        return (status, child.standardOutput, child.standardError)
    }

    @Test func verifyRegistersAndSignsInAndTheExportsSayWhatTheyCannot() async throws {
        let folder = try TemporaryFolder("contract-webauthn", files: ["passkeys.yaml": ToyProvider.webAuthnContract])
        defer { folder.remove() }
        let path = folder.url.path
        let result = try await ToyProvider.withRunning { url in
            try await contract(["verify", path, "--base-url", url, "--no-color"])
        }
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("✓ the same assertion again is refused  [live ✓ stub ✓ agreement ✓]"), "\(result.stdout)")
        #expect(result.stdout.contains("7 interactions: live 7/7, stub 7/7, agreement 7/7"), "\(result.stdout)")

        let pact = try await contract(["export", "pact", path, "--consumer", "app", "--provider", "toy", "--out", path + "/toy.pact.json"])
        #expect(pact.status == 0, "\(pact.stderr)")
        #expect(
            pact.stderr.contains(
                ":a passkey is registered: request $.credential is a WebAuthn registration by mia-phone at https://example.com for {{creation}}: Pact cannot sign one, so the verifier sends an example of its shape, which a provider refuses (contract verify signs a fresh one)\n"
            ),
            "\(pact.stderr)"
        )

        let openapi = try await contract(["export", "openapi", path, "--out", path + "/openapi.json"])
        #expect(openapi.status == 0, "\(openapi.stderr)")
        let document = try String(contentsOfFile: path + "/openapi.json", encoding: .utf8)
        #expect(document.contains("RegistrationResponseJSON") && document.contains("AuthenticationResponseJSON"))
        let python = try #require(
            PythonTools.python(importing: "openapi_spec_validator", from: "openapi-spec-validator"),
            "openapi-spec-validator could not be installed")
        let validation = try await CommandRunner.run(python, ["-m", "openapi_spec_validator", path + "/openapi.json"])
        #expect(validation.status == 0, "\(validation.output)")
    }

    @Test func lintNamesTheFileAndLineOfABrokenCredential() async throws {
        let broken = ToyProvider.webAuthnContract
            .replacingOccurrences(
                of: #"options: "{{creation}}", origin: "https://example.com","#,
                with: #"options: "{{creation}}", origin: "https://example.com/app","#
            )
            .replacingOccurrences(of: #"webauthn_assertion, options: "{{request}}","#, with: #"webauthn_assertion, options: request,"#)
        let folder = try TemporaryFolder("contract-webauthn-lint", files: ["passkeys.yaml": broken])
        defer { folder.remove() }
        let result = try await contract(["lint", folder.url.path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("passkeys.yaml:28:"), "\(result.stderr)")
        #expect(result.stderr.contains("origin must be an origin such as https://example.com"))
        #expect(result.stderr.contains("passkeys.yaml:54:"), "\(result.stderr)")
        #expect(result.stderr.contains("options must be a saved value such as \"{{request}}\""))
    }
}
