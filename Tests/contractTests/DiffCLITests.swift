import ContractKit
import Foundation
import ProcessKit
import Testing

/// `contract diff OLD NEW` run as a program: its report, its JSON and its exit statuses.
@Suite struct DiffCLITests {
    static let old = """
        name: Login
        interactions:
          - name: valid credentials
            request: { method: POST, path: /login, json: { username: alice } }
            response: { status: 200, json: { expires_in: { match: integer, min: 1 } } }
          - name: logout
            request: { method: POST, path: /logout }
            response: { status: 204 }
        """

    static let new = """
        name: Login
        interactions:
          - name: valid credentials
            request: { method: POST, path: /login, json: { username: alice } }
            response: { status: 200, json: { expires_in: { match: string }, token_type: Bearer } }
          - name: logout
            request: { method: POST, path: /logout }
            response: { status: 204 }
        """

    func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let child = try ChildProcess(executable: try ContractCLITests.binary("contract"), arguments: arguments)
        let status = child.wait()
        return (status, child.standardOutput, child.standardError)
    }

    @Test func reportsBreakingChangesAsTextAndJSONAndExitsOne() throws {
        let folder = try TemporaryFolder("contract-diff", files: ["old/login.yaml": Self.old, "new/login.yaml": Self.new])
        defer { folder.remove() }
        let (old, new) = (folder.appending("old").path, folder.appending("new").path)

        let text = try run(["diff", old, new])
        #expect(text.status == 1, "\(text.stderr)")
        #expect(
            text.stdout == """
                breaking  \(old)/login.yaml:3 → \(new)/login.yaml:3  valid credentials: response $.expires_in: an integer of at least 1 → a string (changed)
                safe      \(old)/login.yaml:3 → \(new)/login.yaml:3  valid credentials: response $.token_type: key added: clients ignore keys they do not read
                2 changes: 1 breaking, 1 safe (0 added, 0 removed, 2 changed)

                """
        )

        let json = try run(["diff", old, new, "--json"])
        #expect(json.status == 1)
        let document = try JSONValue(parsing: Data(json.stdout.utf8))
        #expect(document["summary"]?["breaking"] == .integer(1))
        guard case .array(let changes)? = document["changes"] else {
            Issue.record("no changes in \(json.stdout)")
            return
        }
        #expect(changes.map { $0["classification"] } == ["breaking", "safe"])
        #expect(changes.first?["old"]?["line"] == .integer(3))

        let same = try run(["diff", old, old])
        #expect(same.status == 0)
        #expect(same.stdout == "no changes\n")
    }

    @Test func badArgumentsAndBrokenContractsExitTwoWithAReason() throws {
        let folder = try TemporaryFolder(
            "contract-diff", files: ["good/login.yaml": Self.old, "broken/login.yaml": "name: Login\ninteractions: 3\n"])
        defer { folder.remove() }
        let broken = try run(["diff", folder.appending("good").path, folder.appending("broken").path])
        #expect(broken.status == 2)
        #expect(broken.stderr.contains("broken/login.yaml:2:"))
        let missing = try run(["diff", folder.appending("good").path, folder.appending("nowhere").path])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("cannot read the contracts directory"))
        let bothGit = try run(["diff", "git:HEAD", "git:HEAD~1"])
        #expect(bothGit.status == 2)
        #expect(bothGit.stderr.contains("write git:REF:PATH"))
    }
}
