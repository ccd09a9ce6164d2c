import AuthCore
import ContractTestSupport
import Foundation
import ProcessKit
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct ContractCLITests {
    /// A product built beside the test runner.
    static func binary(_ name: String) throws -> String {
        try #require(BuiltExecutable.path(named: name), "\(name) is not built beside the test runner")
    }

    /// What `child` printed after `prefix` on the line it announces itself with (`contract stub
    /// listening on URL`), waiting up to 10 s; nil when it never did.
    static func announcement(_ prefix: String, of child: ChildProcess) async throws -> String? {
        for _ in 0..<100 {
            if let line = child.standardOutput.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) {
                return String(line.dropFirst(prefix.count))
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }

    func run(_ arguments: [String], environment: [String: String]? = nil) async throws -> (status: Int32, stdout: String, stderr: String) {
        let child = try ChildProcess(executable: try Self.binary("contract"), arguments: arguments, environment: environment)
        let status = await child.waitForExit()
        return (status, child.standardOutput, child.standardError)
    }

    func directory(_ files: [String: String]) throws -> URL {
        try TemporaryFolder("contract-cli", files: files).url
    }

    /// The provider under test is `contract stub` itself, serving a fixture contract: no
    /// tool beyond this package is needed.
    static let provider = """
        provider:
          command: "{{env.CONTRACT}} stub {{env.CONTRACT_TEST_ROOT}} --port {{port}}"
          ready: /health.json
          base_url: http://127.0.0.1:{{port}}
          startup_timeout: 30
        """

    static let passing = """
        name: Static files
        interactions:
          - name: health is ok
            request: { method: GET, path: /health.json }
            response:
              status: 200
              json: { status: ok, uptime: { match: integer, min: 0 } }
        """

    static let failing = """
        name: Static files
        interactions:
          - name: health is ok
            request: { method: GET, path: /health.json }
            response:
              status: 200
              json: { status: ready }
          - name: missing file
            request: { method: GET, path: /nope.json }
            response: { status: 200 }
        """

    /// Runs `body` with a folder for the provider to serve and the environment naming it
    /// (per child process: tests run in parallel).
    func withServedRoot<T>(_ body: ([String: String]) async throws -> T) async throws -> T {
        let root = try directory([
            "served.yaml": """
            name: Served
            interactions:
              - name: health
                request: { method: GET, path: /health.json }
                response: { status: 200, strict: true, json: { status: ok, uptime: 5 } }
            """
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        var environment = ProcessInfo.processInfo.environment
        environment["CONTRACT_TEST_ROOT"] = root.path
        environment["CONTRACT"] = try Self.binary("contract")
        return try await body(environment)
    }

    @Test func verifyPassesAndWritesReports() async throws {
        try await withServedRoot { environment in
            let contracts = try directory(["contract.yaml": Self.provider, "static.yaml": Self.passing])
            defer { try? FileManager.default.removeItem(at: contracts) }
            let junit = contracts.appendingPathComponent("out.xml").path
            let json = contracts.appendingPathComponent("out.json").path
            let result = try await run(["verify", contracts.path, "--junit", junit, "--json", json], environment: environment)
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("✓ health is ok"))
            #expect(result.stdout.hasSuffix("1 passed, 0 failed\n"))
            #expect(try String(contentsOfFile: junit, encoding: .utf8).contains(#"tests="1" failures="0""#))
            #expect(try String(contentsOfFile: json, encoding: .utf8).contains(#""passed":1"#))
        }
    }

    @Test func verifyFailsWithADiff() async throws {
        try await withServedRoot { environment in
            let contracts = try directory(["contract.yaml": Self.provider, "static.yaml": Self.failing])
            defer { try? FileManager.default.removeItem(at: contracts) }
            let result = try await run(["verify", contracts.path], environment: environment)
            #expect(result.status == 1)
            #expect(result.stdout.contains("$.status"))
            #expect(result.stdout.contains(#"- expected: "ready""#))
            #expect(result.stdout.contains(#"+ actual:   string "ok""#))
            #expect(result.stdout.contains("status\n        - expected: 200\n        + actual:   501"))
            #expect(result.stdout.contains("static.yaml:3"))
            #expect(result.stdout.hasSuffix("0 passed, 2 failed\n"))
        }
    }

    @Test func brokenContractsExit2WithEveryLine() async throws {
        let contracts = try directory([
            "a.yaml":
                "name: A\ninteractions:\n  - name: x\n    request: { method: GET, path: nope }\n    response: { status: 200, json: { a: { match: strng } } }\n",
            "b.yaml": "name: [\n",
        ])
        defer { try? FileManager.default.removeItem(at: contracts) }
        for command in ["verify", "lint"] {
            let result = try await run([command, contracts.path])
            #expect(result.status == 2)
            #expect(result.stderr.contains("a.yaml:4:"))
            #expect(result.stderr.contains("a.yaml:5:"))
            #expect(result.stderr.contains("b.yaml:2:"))
            #expect(result.stderr.contains("3 problem(s) in the contracts"))
        }
    }

    @Test func anUnstartableProviderExits3() async throws {
        let contracts = try directory([
            "contract.yaml": "provider:\n  command: sh -c 'exit 7'\n  base_url: http://127.0.0.1:{{port}}\n  startup_timeout: 5\n",
            "static.yaml": Self.passing,
        ])
        defer { try? FileManager.default.removeItem(at: contracts) }
        let result = try await run(["verify", contracts.path])
        #expect(result.status == 3)
        #expect(result.stderr.contains("the provider exited with status 7"))

        let unreachable = try await run(["verify", contracts.path, "--base-url", "http://127.0.0.1:9"])
        #expect(unreachable.status == 3)
    }

    @Test func lintCountsWhatItChecked() async throws {
        let contracts = try directory(["contract.yaml": Self.provider, "static.yaml": Self.failing])
        defer { try? FileManager.default.removeItem(at: contracts) }
        let result = try await run(["lint", contracts.path])
        #expect(result.status == 0)
        #expect(result.stdout == "1 contracts, 2 interactions: OK\n")
    }
}

/// authd's own contracts, replayed against the built authd on its embedded PostgreSQL.
@Suite struct AuthdContractTests {
    static let contracts = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("contracts")

    /// Two runs of `contract` on authd's contracts at a time, each started and waited for on
    /// a thread of this pool, not of the tasks' pool: each run starts a PostgreSQL cluster
    /// and an authd that hashes passwords, and more of them at once on two cores make the
    /// rest of the suite miss its deadlines.
    static let runs = BlockingWorkPool(width: 2, queueLimit: 64, niceness: 0)

    /// Runs the built `contract` with an environment that names no authd data folder or
    /// database, so contract.yaml starts authd on a throwaway cluster of its own (in ``runs``).
    static func contract(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["AUTHD_DATA"] = nil
        environment["DATABASE_URL"] = nil
        let (executable, settings) = (try ContractCLITests.binary("contract"), environment)
        return try await runs.run {
            let child = try ChildProcess(executable: executable, arguments: arguments, environment: settings)
            let status = child.wait()
            return (status, child.standardOutput, child.standardError)
        }
    }

    /// `contract verify DIR` as contract.yaml says, except that authd is the one built
    /// beside the tests (`--no-build`: `swift test` holds the build folder).
    func verify(_ directory: URL, _ extra: [String] = []) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await Self.contract(["verify", directory.path, "--no-color", "--no-build"] + extra)
    }

    @Test func authdAnswersEveryBadInputWithADeclaredError() async throws {
        let result = try await Self.contract(["probe", Self.contracts.path, "--no-color", "--no-build"])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        let passed = lines.filter { $0.hasPrefix("    ✓ ") }.count
        #expect(passed > 100)
        #expect(lines.last == "\(passed) passed, 0 failed")
        #expect(lines.contains("    ✓ an unknown extra field → 400 invalid_request  [no contract describes it]"))
        // Sent on a fresh code, so the PKCE check is what refuses it (RFC 7636 §4.6).
        #expect(lines.contains { $0.hasPrefix("    ✓ a code_verifier of another challenge → 400 invalid_grant") })
    }

    @Test func authdKeepsItsContracts() async throws {
        let result = try await verify(Self.contracts, ["--json", jsonReport.path])
        defer { try? FileManager.default.removeItem(at: jsonReport) }
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        // Every interaction was checked live, against the stub, and the two compared.
        let total = result.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("  ✓ ") }.count
        #expect(total >= 24)
        #expect(
            result.stdout.contains(
                "\(total) interactions: live \(total)/\(total), stub \(total)/\(total), agreement \(total)/\(total)\n\(total) passed, 0 failed\n"
            ))
        #expect(result.stdout.contains("  ✓ valid credentials return a bearer token pair  [live ✓ stub ✓ agreement ✓]\n"))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: jsonReport)) as? [String: Any]
        let checks = json?["checks"] as? [String: [String: Int]]
        #expect(checks?["agreement"] == ["held": total, "of": total])
    }

    let jsonReport = FileManager.default.temporaryDirectory.appendingPathComponent("authd-contracts-\(UUID().uuidString.prefix(8)).json")

    @Test func aContractThatDisagreesWithAuthdFailsWithADiff() async throws {
        let temporary = try TemporaryFolder("authd-contracts-copy")
        defer { temporary.remove() }
        // login.yaml and contract.yaml are enough to show it (a whole replay is authdKeepsItsContracts).
        let copy = temporary.appending("contracts")
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        for file in ["login.yaml", "contract.yaml"] {
            try FileManager.default.copyItem(at: Self.contracts.appendingPathComponent(file), to: copy.appendingPathComponent(file))
        }
        let login = copy.appendingPathComponent("login.yaml")
        let text = try String(contentsOf: login, encoding: .utf8)
        try text.replacingOccurrences(of: "        token_type: Bearer\n", with: "        token_type: bearer\n")
            .write(to: login, atomically: true, encoding: .utf8)

        let result = try await verify(copy)
        #expect(result.status == 1)
        #expect(result.stdout.contains("✗ valid credentials return a bearer token pair  [live ✗ stub ✓ agreement ✓]  (\(login.path):3)"))
        #expect(result.stdout.contains("      live $.token_type\n        - expected: \"bearer\"\n        + actual:   string \"Bearer\""))
        let summary = try #require(
            result.stdout.split(separator: "\n").first { $0.hasSuffix(" interactions") || $0.contains(" interactions: ") })
        let total = try #require(Int(summary.prefix { $0.isNumber }))
        #expect(
            result.stdout.hasSuffix(
                "live \(total - 2)/\(total), stub \(total)/\(total), agreement \(total)/\(total)\n\(total - 2) passed, 2 failed\n"))
    }
}

@Suite struct ContractAgreementCLITests {
    /// Leaves out `uptime`, which the provider sends: caught by full agreement only.
    static let lenient = """
        name: Static files
        interactions:
          - name: health is ok
            request: { method: GET, path: /health.json }
            response:
              status: 200
              json: { status: ok }
        """

    @Test func jobsAndStateFiltersAreChecked() async throws {
        let cli = ContractCLITests()
        let contracts = try cli.directory(["contract.yaml": ContractCLITests.provider, "static.yaml": ContractCLITests.passing])
        defer { try? FileManager.default.removeItem(at: contracts) }
        let zero = try await cli.run(["verify", contracts.path, "--stub-only", "--jobs", "0"])
        #expect(zero.status != 0)
        #expect(zero.stderr.contains("--jobs must be at least 1"))
        let one = try await cli.run(["verify", contracts.path, "--stub-only", "--jobs", "1"])
        #expect(one.status == 0)
        #expect(one.stdout.hasSuffix("1 interaction: live not run, stub 1/1, agreement not run\n1 passed, 0 failed\n"))
        let none = try await cli.run(["verify", contracts.path, "--stub-only", "--filter-state", "user exists"])
        #expect(none.status == 1)
        #expect(none.stderr.contains("no interaction matched --filter-state user exists"))
    }

    @Test func fullAgreementCatchesAFieldTheContractLeavesOut() async throws {
        let cli = ContractCLITests()
        try await cli.withServedRoot { environment in
            let contracts = try cli.directory(["contract.yaml": ContractCLITests.provider, "static.yaml": Self.lenient])
            defer { try? FileManager.default.removeItem(at: contracts) }
            let full = try await cli.run(["verify", contracts.path], environment: environment)
            #expect(full.status == 1)
            #expect(full.stdout.contains("agreement $.uptime\n        - expected: present (live)\n        + actual:   missing (stub)"))

            #expect(try await cli.run(["verify", contracts.path, "--agreement", "declared"], environment: environment).status == 0)
            #expect(try await cli.run(["verify", contracts.path, "--live-only"], environment: environment).status == 0)
            let stubOnly = try await cli.run(["verify", contracts.path, "--stub-only"], environment: environment)
            #expect(stubOnly.status == 0)
            #expect(stubOnly.stdout.hasSuffix("1 passed, 0 failed\n"))
            #expect(try await cli.run(["verify", contracts.path, "--stub-only", "--live-only"], environment: environment).status != 0)
        }
    }
}

@Suite struct ContractStubCLITests {
    @Test func servesAuthdsContractsUntilSIGTERM() async throws {
        let child = try ChildProcess(
            executable: try ContractCLITests.binary("contract"),
            arguments: ["stub", AuthdContractTests.contracts.path, "--port", "0"]
        )
        let base = try await ContractCLITests.announcement("contract stub listening on ", of: child).flatMap(URL.init(string:))
        let url = try #require(base).appendingPathComponent(".well-known/jwks.json")
        let (data, response) = try await URLSession.shared.data(from: url)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self).contains(#""kty":"OKP""#))
        child.send(SIGTERM)
        #expect(await child.waitForExit() == 0)
    }
}

@Suite struct ContractProbeCLITests {
    @Test func aBrokenProviderFailsWithAClearReport() async throws {
        let temporary = try TemporaryFolder("contract-probe")
        defer { temporary.remove() }
        let folder = temporary.url
        try NotesProvider.contract.write(to: folder.appendingPathComponent("notes.yaml"), atomically: true, encoding: .utf8)
        let contract = try ContractCLITests.binary("contract")
        let (text, json) = try await NotesProvider.withRunning(broken: true) { url in
            let text = try ChildProcess(
                executable: contract, arguments: ["probe", folder.path, "--base-url", url, "--deadline", "30", "--no-color"])
            let json = try ChildProcess(
                executable: contract, arguments: ["probe", folder.path, "--base-url", url, "--deadline", "30", "--json"])
            return (
                (status: await text.waitForExit(), stdout: text.standardOutput),
                (status: await json.waitForExit(), stdout: json.standardOutput)
            )
        }
        #expect(text.status == 1)
        #expect(text.stdout.contains(#"    ✗ title missing → 500: a server error (500) "Internal Server Error""#))
        #expect(text.stdout.contains(#"    ✗ title a number → 400: an error shape no contract declares: "{\"message\":\"bad title\"}""#))
        #expect(text.stdout.hasSuffix(" passed, 2 failed\n"))
        #expect(json.status == 1)
        let report = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(report?["failed"] as? Int == 2)
    }
}

/// `contract record` in front of a provider written for the test: UUIDs, a JWT, times, and a
/// token reused in the next call.
@Suite struct ContractRecordCLITests {
    /// Runs `contract record` in front of `target`, sends the notes traffic through it, stops
    /// it with `signal`, and returns its output.
    func record(_ target: String, into folder: URL, extra: [String], signal: Int32) async throws -> (status: Int32, stdout: String) {
        let child = try ChildProcess(
            executable: try ContractCLITests.binary("contract"),
            arguments: ["record", "--target", target, "--out", folder.path, "--port", "0"] + extra
        )
        let proxy = try await ContractCLITests.announcement("contract record listening on ", of: child)?.split(separator: ",").first.map(
            String.init)
        let base = try #require(proxy)
        func send(_ method: String, _ path: String, json: String? = nil, token: String? = nil) async throws -> (Int, [String: Any]) {
            var request = URLRequest(url: try #require(URL(string: base + path)))
            request.httpMethod = method
            if let json {
                request.httpBody = Data(json.utf8)
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
            if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
            let (data, response) = try await URLSession.shared.data(for: request)
            return (
                (response as? HTTPURLResponse)?.statusCode ?? 0, (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
            )
        }
        let (_, login) = try await send("POST", "/login", json: #"{"username": "alice", "password": "secret"}"#)
        let token = try #require(login["access_token"] as? String)
        let (created, note) = try await send("POST", "/notes", json: #"{"title": "Groceries"}"#, token: token)
        #expect(created == 201)
        let id = try #require(note["id"] as? String)
        #expect(try await send("GET", "/notes/\(id)", token: token).0 == 200)
        #expect(try await send("GET", "/notes/\(UUID().uuidString.lowercased())", token: token).0 == 404)
        #expect(try await send("POST", "/login", json: #"{"username": "alice", "password": "wrong"}"#).0 == 401)
        child.send(signal)
        return (await child.waitForExit(), child.standardOutput)
    }

    func contract(_ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, stdout: String) {
        let child = try ChildProcess(
            executable: try ContractCLITests.binary("contract"), arguments: arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        )
        return (await child.waitForExit(), child.standardOutput + child.standardError)
    }

    @Test func recordedContractsVerifyUneditedLiveAndOnTheStub() async throws {
        let temporary = try TemporaryFolder("contract-record")
        defer { temporary.remove() }
        let folder = temporary.appending("folder")
        try await NotesProvider.withRunning { url in
            let recorded = try await record(url, into: folder, extra: ["--keep-secrets"], signal: SIGINT)
            #expect(recorded.status == 0)
            #expect(recorded.stdout.contains("recorded 5 exchanges into \(folder.path): login.yaml (5 interactions)"))
            let yaml = try String(contentsOf: folder.appendingPathComponent("login.yaml"), encoding: .utf8)
            // Inferred matchers, and the token and the note's id saved and sent back.
            #expect(yaml.contains("access_token: {match: jwt}"))
            #expect(yaml.contains("created_at: {match: datetime}"))
            #expect(yaml.contains("id: {match: uuid}"))
            #expect(yaml.contains("expires_in: {match: integer, example: 900}"))
            #expect(yaml.contains(#"Authorization: "Bearer {{access_token}}""#))
            #expect(yaml.contains(#"path: "/notes/{{id}}""#))
            #expect(yaml.contains(#"path: "/notes/{id}""#))
            #expect(yaml.contains(#"id: "$.id""#))
            #expect(yaml.contains("password: secret"))

            let lint = try await contract(["lint", folder.path])
            #expect(lint.status == 0, "\(lint.stdout)")
            let live = try await contract(["verify", folder.path, "--base-url", url, "--no-color"])
            #expect(live.status == 0, "\(live.stdout)\n\(yaml)")
            #expect(live.stdout.contains("5 interactions: live 5/5, stub 5/5, agreement 5/5"))
            let stub = try await contract(["verify", folder.path, "--stub-only", "--no-color"])
            #expect(stub.status == 0, "\(stub.stdout)")
        }
    }

    @Test func secretsBecomeEnvironmentVariablesAndSIGTERMWritesToo() async throws {
        let temporary = try TemporaryFolder("contract-record")
        defer { temporary.remove() }
        let folder = temporary.appending("folder")
        try await NotesProvider.withRunning { url in
            let recorded = try await record(url, into: folder, extra: [], signal: SIGTERM)
            #expect(recorded.status == 0)
            #expect(recorded.stdout.contains("  LOGIN_PASSWORD  (POST /login json password)"))
            #expect(recorded.stdout.contains("  LOGIN_PASSWORD_2  (POST /login json password)"))
            let yaml = try String(contentsOf: folder.appendingPathComponent("login.yaml"), encoding: .utf8)
            #expect(yaml.contains(#"password: "{{env.LOGIN_PASSWORD}}""#))
            #expect(!yaml.contains("password: secret"))
            #expect(!yaml.contains("password: wrong"))
            let live = try await contract(
                ["verify", folder.path, "--base-url", url, "--no-color"],
                environment: ["LOGIN_PASSWORD": "secret", "LOGIN_PASSWORD_2": "wrong"]
            )
            #expect(live.status == 0, "\(live.stdout)\n\(yaml)")
        }
    }
}
