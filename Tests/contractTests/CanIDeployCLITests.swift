import ContractKit
import Foundation
import ProcessKit
import Testing

/// `contract can-i-deploy` run as a program against authd's contracts and the usage the
/// example client's tests wrote (Examples/LoginClient/contract-usage/LoginClient.json).
@Suite struct CanIDeployCLITests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let usage = root.appendingPathComponent("Examples/LoginClient/contract-usage/LoginClient.json").path
    static let used = "valid credentials return a bearer token pair"
    static let unused = "usernames match case-insensitively"

    func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let child = try ChildProcess(executable: try ContractCLITests.binary("contract"), arguments: arguments)
        let status = child.wait()
        return (status, child.standardOutput, child.standardError)
    }

    /// A copy of authd's contracts in `name`, with `edit` applied to login.yaml's text.
    func copy(into folder: TemporaryFolder, _ name: String, edit: (String) -> String = { $0 }) throws -> String {
        let target = folder.appending(name)
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        let source = Self.root.appendingPathComponent("contracts")
        for file in try FileManager.default.contentsOfDirectory(atPath: source.path) where file.hasSuffix(".yaml") {
            var text = try String(contentsOf: source.appendingPathComponent(file), encoding: .utf8)
            if file == "login.yaml" { text = edit(text) }
            try text.write(to: target.appendingPathComponent(file), atomically: true, encoding: .utf8)
        }
        return target.path
    }

    /// `text` with the first `old` after the line naming `interaction` replaced.
    static func change(_ text: String, in interaction: String, _ old: String, _ new: String) -> String {
        guard let start = text.range(of: "- name: \(interaction)\n"),
            let range = text.range(of: old, range: start.upperBound..<text.endIndex)
        else {
            Issue.record("\(old) not found after \(interaction)")
            return text
        }
        return text.replacingCharacters(in: range, with: new)
    }

    @Test func theCommittedUsageNamesTheInteractionsThisTestChanges() throws {
        let usage = try ContractUsage(parsing: Data(contentsOf: URL(fileURLWithPath: Self.usage)))
        #expect(usage.client == "LoginClient")
        #expect(usage.interactions.contains { $0.file == "login.yaml" && $0.interaction == Self.used })
        #expect(!usage.interactions.contains { $0.interaction == Self.unused })
    }

    @Test func aBreakingChangeToAnInteractionTheClientUsesFailsNamingIt() throws {
        let folder = try TemporaryFolder("can-i-deploy")
        defer { folder.remove() }
        let old = try copy(into: folder, "old")
        let new = try copy(into: folder, "new") {
            Self.change(
                $0, in: Self.used, "expires_in: { match: integer, min: 1, example: 900 }", #"expires_in: { match: string, example: "900" }"#
            )
        }
        let text = try run(["can-i-deploy", new, "--usage", Self.usage, "--against", old])
        #expect(text.status == 1, "\(text.stdout)\(text.stderr)")
        #expect(
            text.stdout.contains(
                "BROKEN  LoginClient  POST /login  breaking  \(old)/login.yaml:3 → \(new)/login.yaml:3  \(Self.used): response $.expires_in:"
            ))
        #expect(
            text.stdout.hasSuffix(
                "can-i-deploy: no — breaking changes to 1 interaction that LoginClient uses (1 breaking, 0 safe; usage of 1 client (LoginClient))\n"
            ))

        let json = try run(["can-i-deploy", new, "--usage", Self.usage, "--against", old, "--json"])
        #expect(json.status == 1)
        let document = try JSONValue(parsing: Data(json.stdout.utf8))
        #expect(document["deployable"] == .bool(false))
        guard case .array(let broken)? = document["broken"], let first = broken.first else {
            Issue.record("nothing broken in \(json.stdout)")
            return
        }
        #expect(broken.count == 1)
        #expect(first["client"] == .string("LoginClient"))
        #expect(first["change"]?["interaction"] == .string(Self.used))
        #expect(first["change"]?["path"] == .string("response $.expires_in"))
    }

    @Test func safeChangesAndBreakingOnesNobodyUsesPass() throws {
        let folder = try TemporaryFolder("can-i-deploy")
        defer { folder.remove() }
        let old = try copy(into: folder, "old")
        let new = try copy(into: folder, "new") { text in
            let added = Self.change(
                text, in: Self.used, "refresh_expires_in: { match: integer, min: 1, example: 2592000 }\n",
                "refresh_expires_in: { match: integer, min: 1, example: 2592000 }\n        scope: { match: string, example: openid }\n"
            )
            return Self.change(added, in: Self.unused, "status: 200", "status: 201")
        }
        let result = try run(["can-i-deploy", new, "--usage", Self.usage, "--against", old])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(
            result.stdout.contains(
                "unused  breaking  \(old)/login.yaml:25 → \(new)/login.yaml:26  \(Self.unused): response status: 200 → 201"))
        #expect(
            result.stdout.hasSuffix(
                "can-i-deploy: yes — 1 breaking change to interactions no client uses, 1 safe (usage of 1 client (LoginClient))\n"))

        let bad = try run(["can-i-deploy", new, "--usage", folder.appending("nowhere.json").path, "--against", old])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("cannot read the usage file"))
    }

    /// Without --against, NEW is compared with itself as committed (git:HEAD).
    @Test func theDefaultIsTheLastCommit() throws {
        let folder = try TemporaryFolder("can-i-deploy-git")
        defer { folder.remove() }
        _ = try copy(into: folder, "contracts")
        let contract = try ContractCLITests.binary("contract")
        let script = """
            set -e
            cd '\(folder.url.path)'
            git init -q . && git add contracts && git -c user.name=t -c user.email=t@example.com commit -q -m contracts
            sed -i 's/expires_in: { match: integer, min: 1, example: 900 }/expires_in: { match: integer, min: 1, max: 900, example: 900 }/' contracts/login.yaml
            '\(contract)' can-i-deploy contracts --usage '\(Self.usage)'
            """
        let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", script])
        let status = child.wait()
        #expect(status == 1, "\(child.standardOutput)\(child.standardError)")
        #expect(
            child.standardOutput.contains(
                "BROKEN  LoginClient  POST /login  breaking  HEAD:contracts/login.yaml:3 → contracts/login.yaml:3  \(Self.used)"))
        // Only that change: what a committed side keeps (a clock step, deliveries) reads as it was.
        #expect(!child.standardOutput.contains("token-expiry.yaml"), "\(child.standardOutput)")
    }
}
