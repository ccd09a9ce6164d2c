import AuthTestSupport
import ContractTestSupport
import Foundation
import ProcessKit
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// TOTP through the built binary, with an independent app: pyotp (PyPI) reads the
/// `otpauth_uri` authd answers and computes the codes; the operator sees and removes the
/// factor with `authd user credentials`.
@Suite struct SecondFactorCommandTests {
    static let password = "correct horse battery staple"

    /// pyotp's code for `uri`, `offset` seconds from now (waited for off the tasks' pool).
    static func pyotp(_ python: String, _ uri: String, offset: Int = 0) async throws -> String {
        let script = "import pyotp, sys, time; print(pyotp.parse_uri(sys.argv[1]).at(time.time() + int(sys.argv[2])))"
        let child = try ChildProcess(executable: python, arguments: ["-c", script, uri, String(offset)])
        #expect(await child.waitForExit() == 0, "\(child.standardError)")
        return child.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(.enabled(if: PythonTools.python(importing: "pyotp", from: "pyotp") != nil, "pyotp could not be installed from PyPI"))
    func anAppReadingTheURILogsInAndTheOperatorSeesAndRemovesIt() async throws {
        let python = try #require(PythonTools.python(importing: "pyotp", from: "pyotp"))
        let database = try await TestCluster.newMigratedDatabase()
        let url = ["--database-url", database.url]
        let added = try await AuthdBinary.run(["user", "add", "alice", "--password-stdin"] + url, input: Self.password)
        #expect(added.status == 0, "\(added.stderr)")
        let off = try await AuthdBinary.run(["user", "credentials", "alice"] + url)
        #expect(off.stdout == "KIND      STATE\npassword  set\ntotp      off\n", "\(off.stderr)")

        let (_, status) = try await AuthdBinary.withServer(url) { base in
            let access = try #require(try await AuthdBinary.login(base, "alice", Self.password).1["access_token"] as? String)
            let (enrolled, enrolment) = try await AuthdBinary.post(base, "mfa/totp", [:], bearer: access)
            #expect(enrolled == 200)
            let uri = try #require(enrolment["otpauth_uri"] as? String)
            let waiting = try await AuthdBinary.run(["user", "credentials", "alice"] + url).stdout
            #expect(waiting.contains("totp      enrolment waiting for its first code since "))

            let (confirmed, codes) = try await AuthdBinary.post(
                base, "mfa/totp/confirm", ["code": try await Self.pyotp(python, uri)], bearer: access)
            #expect(confirmed == 200)
            let recoveryCodes = try #require(codes["recovery_codes"] as? [String])

            let (first, challenge) = try await AuthdBinary.login(base, "alice", Self.password)
            #expect(first == 401 && challenge["error"] as? String == "mfa_required")
            let mfaToken = try #require(challenge["mfa_token"] as? String)
            // The next step's code: the current one confirmed the app.
            let (second, tokens) = try await AuthdBinary.post(
                base, "login/mfa", ["mfa_token": mfaToken, "code": try await Self.pyotp(python, uri, offset: 30)])
            #expect(second == 200 && tokens["access_token"] is String)

            let again = try #require(try await AuthdBinary.login(base, "alice", Self.password).1["mfa_token"] as? String)
            #expect(try await AuthdBinary.post(base, "login/mfa", ["mfa_token": again, "recovery_code": recoveryCodes[3]]).0 == 200)
            let on = try await AuthdBinary.run(["user", "credentials", "alice"] + url).stdout
            #expect(on.contains("totp      on since ") && on.hasSuffix(", 9 recovery codes left\n"), "\(on)")

            let removed = try await AuthdBinary.run(["user", "credentials", "alice", "--remove", "totp"] + url)
            #expect(removed.stdout == "removed the authenticator app of alice\n")
            #expect(
                try await AuthdBinary.run(["user", "credentials", "alice", "--remove", "totp"] + url).stdout
                    == "alice has no authenticator app\n")
            #expect(try await AuthdBinary.login(base, "alice", Self.password).0 == 200)
            let audit = try await AuthdBinary.run(["audit", "--user", "alice"] + url).stdout
            #expect(audit.contains("totp_disabled") && audit.contains("operator"))
            #expect(!audit.contains(mfaToken) && !audit.contains(recoveryCodes[3]))
        }
        #expect(status == 0)
    }
}
