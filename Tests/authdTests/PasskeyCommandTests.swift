import AuthTestSupport
import ContractTestSupport
import Foundation
import ProcessKit
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Passkeys through the built binary, with an independent authenticator: soft-webauthn
/// (PyPI, built on Yubico's fido2) registers over HTTP and signs in; its assertions say
/// user-present only, so a server that requires user verification refuses them.
@Suite struct PasskeyCommandTests {
    static let password = "correct horse battery staple"

    /// Logs in with the password, registers soft-webauthn's key, then signs in with it;
    /// prints `register STATUS`, `login STATUS` and the access token.
    static let script = #"""
        import base64, json, sys, urllib.error, urllib.request
        from soft_webauthn import SoftWebauthnDevice

        base, username, password, origin = sys.argv[1:5]
        def b64d(text): return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        def b64e(data): return base64.urlsafe_b64encode(data).decode().rstrip("=")
        def post(path, body, bearer=None):
            headers = {"Content-Type": "application/json"}
            if bearer: headers["Authorization"] = "Bearer " + bearer
            request = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST", headers=headers)
            try:
                with urllib.request.urlopen(request) as response: return response.status, json.loads(response.read() or b"{}")
            except urllib.error.HTTPError as error: return error.code, json.loads(error.read() or b"{}")

        _, tokens = post("/login", {"username": username, "password": password})
        access = tokens["access_token"]
        _, options = post("/webauthn/register/options", {}, access)
        options["challenge"] = b64d(options["challenge"])
        options["user"]["id"] = b64d(options["user"]["id"])
        device = SoftWebauthnDevice()
        made = device.create({"publicKey": options}, origin)
        credential = {"id": b64e(made["rawId"]), "rawId": b64e(made["rawId"]), "type": "public-key",
                      "response": {key: b64e(value) for key, value in made["response"].items()}, "clientExtensionResults": {}}
        status, _ = post("/webauthn/register", {"credential": credential, "name": "soft-webauthn"}, access)
        print("register", status)
        _, request = post("/webauthn/login/options", {"username": username})
        request["challenge"] = b64d(request["challenge"])
        signed = device.get({"publicKey": request}, origin)
        credential = {"id": b64e(signed["rawId"]), "rawId": b64e(signed["rawId"]), "type": "public-key",
                      "response": {key: b64e(value) for key, value in signed["response"].items()}, "clientExtensionResults": {}}
        status, tokens = post("/webauthn/login", {"credential": credential})
        print("login", status)
        print(tokens.get("access_token", ""))
        """#

    static func run(_ python: String, _ base: URL, _ username: String) async throws -> [String] {
        let child = try ChildProcess(
            executable: python,
            arguments: ["-c", script, base.absoluteString.trimmingCharacters(in: ["/"]), username, password, "https://localhost:8443"]
        )
        #expect(await child.waitForExit() == 0, "\(child.standardError)")
        return child.standardOutput.split(separator: "\n").map(String.init)
    }

    @Test(
        .enabled(
            if: PythonTools.python(importing: "soft_webauthn", from: "soft-webauthn") != nil,
            "soft-webauthn could not be installed from PyPI"))
    func aSoftwareAuthenticatorRegistersAndSignsInOverHTTP() async throws {
        let python = try #require(PythonTools.python(importing: "soft_webauthn", from: "soft-webauthn"))
        let database = try await TestCluster.newMigratedDatabase()
        let url = ["--database-url", database.url]
        for name in ["alice", "bob"] {
            let added = try await AuthdBinary.run(["user", "add", name, "--password-stdin"] + url, input: Self.password)
            #expect(added.status == 0, "\(added.stderr)")
        }
        let relyingParty = ["--rp-id", "localhost", "--rp-name", "authd tests", "--origin", "https://localhost:8443"]

        let (_, lenient) = try await AuthdBinary.withServer(url + relyingParty + ["--passkey-user-verification", "preferred"]) { base in
            let output = try await Self.run(python, base, "alice")
            #expect(output.prefix(2) == ["register 201", "login 200"], "\(output)")
            let access = try #require(output.last)
            var me = URLRequest(url: base.appendingPathComponent("me"))
            me.setValue("Bearer \(access)", forHTTPHeaderField: "Authorization")
            let (body, response) = try await URLSession.shared.data(for: me)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(String(decoding: body, as: UTF8.self).contains(#""username":"alice""#))
            // A second device of alice's registers too.
            #expect(try await Self.run(python, base, "alice").prefix(2) == ["register 201", "login 200"])
        }
        #expect(lenient == 0)

        // The operator sees them (never a key) and removes one, then all.
        let listed = try await AuthdBinary.run(["user", "credentials", "alice"] + url).stdout
        let lines = listed.split(separator: "\n").filter { $0.hasPrefix("passkey   ") }
        #expect(lines.count == 2, "\(listed)")
        let line = try #require(lines.first)
        #expect(line.contains(#""soft-webauthn"  registered "#) && line.contains(", last used "), "\(listed)")
        let id = String(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        // With `=`: a base64url id may begin with `-`.
        #expect(
            try await AuthdBinary.run(["user", "credentials", "alice", "--remove=\(id)"] + url).stdout == "removed passkey \(id) of alice\n"
        )
        let again = try await AuthdBinary.run(["user", "credentials", "alice", "--remove=\(id)"] + url)
        #expect(again.status != 0 && again.stderr.contains("alice has no passkey \(id)"))
        // Setting the password with --password-only removes the rest (contract.yaml's "user exists").
        let alone = try await AuthdBinary.run(["user", "add", "alice", "--password-stdin", "--password-only"] + url, input: Self.password)
        #expect(
            alone.status != 0 && alone.stderr.contains("--password-only is for an account that exists: pass --update-existing with it."),
            "\(alone.stderr)")
        let reset = try await AuthdBinary.run(
            ["user", "add", "alice", "--password-stdin", "--update-existing", "--password-only"] + url, input: Self.password)
        #expect(reset.stdout == "updated user alice, and removed 1 passkey\n", "\(reset.stderr)")
        #expect(
            try await AuthdBinary.run(["user", "credentials", "alice", "--remove", "all"] + url).stdout == "removed 0 passkeys of alice\n")
        #expect(
            try await AuthdBinary.run(["user", "credentials", "alice"] + url).stdout == "KIND      STATE\npassword  set\ntotp      off\n")

        // By default a passkey must verify its user: soft-webauthn's (user-present only) is refused.
        let (_, strict) = try await AuthdBinary.withServer(url + relyingParty) { base async throws in
            #expect(try await Self.run(python, base, "bob").prefix(1) == ["register 401"])
        }
        #expect(strict == 0)
        let audit = try await AuthdBinary.run(["audit", "--user", "bob"] + url).stdout
        #expect(audit.contains("passkey_user_verified"), "\(audit)")
    }
}
