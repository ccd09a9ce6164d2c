import Foundation
import ProcessKit
import Testing

@Suite struct ContractCLITests {
    static var binary: String {
        get throws {
            var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            while folder.path != "/" {
                let candidate = folder.appendingPathComponent("contract").path
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
                folder.deleteLastPathComponent()
            }
            Issue.record("contract binary not found")
            throw CancellationError()
        }
    }

    func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let child = try ChildProcess(executable: try Self.binary, arguments: arguments)
        let status = child.wait()
        return (status, child.standardOutput, child.standardError)
    }

    func directory(_ files: [String: String]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("contract-cli-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, text) in files {
            try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        return folder
    }

    /// A provider made of a shell one-liner: python's http.server serving a folder of files.
    static let provider = """
        provider:
          command: python3 -m http.server {{port}} --bind 127.0.0.1 --directory {{env.CONTRACT_TEST_ROOT}}
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

    func withServedRoot<T>(_ body: (URL) throws -> T) throws -> T {
        let root = try directory(["health.json": #"{"status": "ok", "uptime": 5}"#])
        defer { try? FileManager.default.removeItem(at: root) }
        setenv("CONTRACT_TEST_ROOT", root.path, 1)
        return try body(root)
    }

    @Test func verifyPassesAndWritesReports() throws {
        try withServedRoot { _ in
            let contracts = try directory(["contract.yaml": Self.provider, "static.yaml": Self.passing])
            defer { try? FileManager.default.removeItem(at: contracts) }
            let junit = contracts.appendingPathComponent("out.xml").path
            let json = contracts.appendingPathComponent("out.json").path
            let result = try run(["verify", contracts.path, "--junit", junit, "--json", json])
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("✓ health is ok"))
            #expect(result.stdout.hasSuffix("1 passed, 0 failed\n"))
            #expect(try String(contentsOfFile: junit, encoding: .utf8).contains(#"tests="1" failures="0""#))
            #expect(try String(contentsOfFile: json, encoding: .utf8).contains(#""passed":1"#))
        }
    }

    @Test func verifyFailsWithADiff() throws {
        try withServedRoot { _ in
            let contracts = try directory(["contract.yaml": Self.provider, "static.yaml": Self.failing])
            defer { try? FileManager.default.removeItem(at: contracts) }
            let result = try run(["verify", contracts.path])
            #expect(result.status == 1)
            #expect(result.stdout.contains("$.status"))
            #expect(result.stdout.contains(#"- expected: "ready""#))
            #expect(result.stdout.contains(#"+ actual:   string "ok""#))
            #expect(result.stdout.contains("status\n        - expected: 200\n        + actual:   404"))
            #expect(result.stdout.contains("static.yaml:3"))
            #expect(result.stdout.hasSuffix("0 passed, 2 failed\n"))
        }
    }

    @Test func brokenContractsExit2WithEveryLine() throws {
        let contracts = try directory([
            "a.yaml": "name: A\ninteractions:\n  - name: x\n    request: { method: GET, path: nope }\n    response: { status: 200, json: { a: { match: strng } } }\n",
            "b.yaml": "name: [\n",
        ])
        defer { try? FileManager.default.removeItem(at: contracts) }
        for command in ["verify", "lint"] {
            let result = try run([command, contracts.path])
            #expect(result.status == 2)
            #expect(result.stderr.contains("a.yaml:4:"))
            #expect(result.stderr.contains("a.yaml:5:"))
            #expect(result.stderr.contains("b.yaml:2:"))
            #expect(result.stderr.contains("3 problem(s) in the contracts"))
        }
    }

    @Test func anUnstartableProviderExits3() throws {
        let contracts = try directory([
            "contract.yaml": "provider:\n  command: sh -c 'exit 7'\n  base_url: http://127.0.0.1:{{port}}\n  startup_timeout: 5\n",
            "static.yaml": Self.passing,
        ])
        defer { try? FileManager.default.removeItem(at: contracts) }
        let result = try run(["verify", contracts.path])
        #expect(result.status == 3)
        #expect(result.stderr.contains("the provider exited with status 7"))

        let unreachable = try run(["verify", contracts.path, "--base-url", "http://127.0.0.1:9"])
        #expect(unreachable.status == 3)
    }

    @Test func lintCountsWhatItChecked() throws {
        let contracts = try directory(["contract.yaml": Self.provider, "static.yaml": Self.failing])
        defer { try? FileManager.default.removeItem(at: contracts) }
        let result = try run(["lint", contracts.path])
        #expect(result.status == 0)
        #expect(result.stdout == "1 contracts, 2 interactions: OK\n")
    }
}
