import ContractKit
import ContractTestSupport
import Foundation
import ProcessKit
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The Pact verifier from PyPI (`pact-python-cli`), installed on first use by
/// `scripts/python-venv`, as `scripts/openapi-check` installs its tools.
enum PactVerifier {
    /// The `pact` program, or nil when it could not be installed.
    static let path: String? = PythonTools.program("pact", from: "pact-python-cli")
}

/// `contract export pact`: authd's contracts leave as a Pact file that the Pact verifier
/// replays against a live authd, with `contract pact-states` as its state-change URL.
@Suite struct PactExportCLITests {
    @Test(.enabled(if: PactVerifier.path != nil, "the Pact verifier could not be installed from PyPI (pip install pact-python-cli)"))
    func authdsContractsPassThePactVerifier() async throws {
        let pact = try #require(PactVerifier.path)
        let temporary = try TemporaryFolder("pact-export")
        defer { temporary.remove() }
        let folder = temporary.url
        let file = folder.appendingPathComponent("ios-app-authd.json")
        let contracts = AuthdContractTests.contracts.path

        // The export starts nothing: it need not wait its turn among the runs that start authd.
        let exporter = try ChildProcess(
            executable: try ContractCLITests.binary("contract"),
            arguments: ["export", "pact", contracts, "--consumer", "ios-app", "--provider", "authd", "--out", file.path]
        )
        let exported = (status: await exporter.waitForExit(), stderr: exporter.standardError)
        #expect(exported.status == 0, "\(exported.stderr)")
        // What Pact cannot check is said, per interaction.
        #expect(
            exported.stderr.contains(
                ":/me answers with the account the access token names: response $.user_id must equal the value saved as {{sub}}: Pact checks its shape only\n"
            ))
        #expect(
            exported.stderr.contains(
                ":valid credentials return a bearer token pair: response $.expires_in: Pact has no numeric bounds, so the minimum 1 is not checked\n"
            ))

        var environment = ProcessInfo.processInfo.environment
        environment["AUTHD_DATA"] = nil
        environment["DATABASE_URL"] = nil
        let states = try ChildProcess(
            executable: try ContractCLITests.binary("contract"), arguments: ["pact-states", contracts, "--no-build"],
            environment: environment
        )
        defer {
            states.send(SIGTERM)
            states.wait()
        }
        var lines: [String] = []
        for _ in 0..<240 where states.poll() == nil {
            lines = states.standardOutput.split(separator: "\n").map(String.init)
            if lines.count >= 3 { break }
            try await Task.sleep(for: .milliseconds(500))
        }
        let stderr = states.standardError
        let provider = try #require(
            URLComponents(string: lines.first { $0.hasPrefix("provider: ") }?.dropFirst(10).description ?? ""), "\(stderr)")
        let stateURL = try #require(lines.first { $0.hasPrefix("state change URL: ") }?.dropFirst(18).description, "\(stderr)")
        // The verifier runs as the printed command line says, its file put in.
        let commandLine = try #require(lines.first { $0.hasPrefix("pact verifier ") }, "\(stderr)")
        #expect(
            commandLine
                == "pact verifier --file PACT.json --hostname 127.0.0.1 --port \(provider.port ?? 0) --state-change-url \(stateURL)"
                + " --request-timeout 300000")

        func verify(_ file: URL, _ extra: [String] = []) async throws -> (status: Int32, output: String) {
            let arguments = commandLine.split(separator: " ").dropFirst().map { $0 == "PACT.json" ? file.path : String($0) }
            let child = try ChildProcess(executable: pact, arguments: arguments + ["--no-colour"] + extra, mergeErrors: true)
            return (await child.waitForExit(), child.standardOutput)
        }

        // The files are independent sequences (each its own users and clients), as `contract
        // verify` runs them: a verifier per group of files at once, then the files whose
        // interactions move authd's clock, alone.
        var groups: [[String]] = [[], [], []]
        var sizes = [0, 0, 0]
        var stepping: [String] = []
        for contract in ContractLoader.load(directory: contracts).contracts.sorted(by: { $0.interactions.count > $1.interactions.count }) {
            if contract.interactions.contains(where: { $0.after != nil }) {
                stepping.append(contract.file)
            } else if let smallest = sizes.indices.min(by: { sizes[$0] < sizes[$1] }) {
                groups[smallest].append(contract.file)
                sizes[smallest] += contract.interactions.count
            }
        }
        func exportGroup(_ files: [String], named name: String) async throws -> URL {
            let directory = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for path in files + [contracts + "/contract.yaml"] {
                let source = URL(fileURLWithPath: path)
                try FileManager.default.copyItem(at: source, to: directory.appendingPathComponent(source.lastPathComponent))
            }
            let out = folder.appendingPathComponent("\(name).json")
            let child = try ChildProcess(
                executable: try ContractCLITests.binary("contract"),
                arguments: ["export", "pact", directory.path, "--consumer", "ios-app", "--provider", "authd", "--out", out.path]
            )
            #expect(await child.waitForExit() == 0, "\(child.standardError)")
            return out
        }
        var parts: [URL] = []
        for (index, files) in groups.enumerated() { parts.append(try await exportGroup(files, named: "group-\(index)")) }
        let steppingPart = try await exportGroup(stepping, named: "stepping")
        let together = try await withThrowingTaskGroup(of: (status: Int32, output: String).self) { group in
            for part in parts { group.addTask { try await verify(part) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let runs = together + [try await verify(steppingPart)]
        let verified = (status: runs.map(\.status).max() ?? 0, output: runs.map(\.output).joined(separator: "\n"))
        // Pact cannot compute a TOTP code nor sign a passkey's credential, and its verifier
        // follows a redirect to an app: the interactions that send one or answer one (the
        // export noted each) fail, and only those.
        let noted = exported.stderr.split(separator: "\n").compactMap { note -> String? in
            guard
                note.contains(": Pact cannot compute one") || note.contains(": Pact cannot sign one") || note.contains(": Pact follows it")
                    || note.contains(": Pact follows them"),
                let file = note.range(of: ".yaml:"), let place = note.range(of: ": request ") ?? note.range(of: ": response ")
            else { return nil }
            return String(note[file.upperBound..<place.lowerBound])
        }
        let failures = verified.output.split(separator: "\n").filter {
            $0.range(of: #"^\s*[0-9]+\) Verifying a pact"#, options: .regularExpression) != nil
        }
        #expect(failures.allSatisfy { line in noted.contains { line.contains(" - \($0)") } }, "\(verified.output)\n\(states.standardError)")
        #expect(verified.status == (failures.isEmpty ? 0 : 1), "\(verified.output)\n\(states.standardError)")
        #expect(verified.output.contains("Verifying a pact between ios-app and authd"))
        // Requests with saved values got them from the state-change URL: the refresh succeeded.
        #expect(verified.output.contains("a refresh token is exchanged for a new pair ("))
        #expect(verified.output.contains("Given values saved by earlier interactions"))

        // The verifier fails when authd does not answer as the file says.
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        var interactions = try #require(document["interactions"] as? [[String: Any]])
        let index = try #require(interactions.firstIndex { $0["description"] as? String == "a refresh token is exchanged for a new pair" })
        var response = try #require(interactions[index]["response"] as? [String: Any])
        response["status"] = 201
        interactions[index]["response"] = response
        document["interactions"] = interactions
        let broken = folder.appendingPathComponent("broken.json")
        try JSONSerialization.data(withJSONObject: document).write(to: broken)
        let refused = try await verify(broken, ["--filter-description", "a refresh token is exchanged for a new pair"])
        #expect(refused.status != 0)
        #expect(refused.output.contains("has status code 201\n           expected 201 but was 200"), "\(refused.output)")
    }
}
