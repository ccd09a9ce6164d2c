import ContractEvolution
import ContractKit
import ContractStub
import Foundation
import Testing

/// What a client's tests exercised: `stub.usage`, `unexercised`, the usage file.
@Suite struct StubUsageTests {
    let login = post("/login", #"{"username": "alice", "password": "secret"}"#)
    let wrong = post("/login", #"{"username": "alice", "password": "wrong"}"#)

    @Test func usageListsTheAnsweredInteractionsSortedAndOutlivesReset() throws {
        let stub = try ContractStub(contracts: [try loadContract(ContractStubTests.toy, file: "contracts/toy.yaml")])
        #expect(stub.usage(client: "app").interactions.isEmpty)
        _ = stub.respond(to: wrong)
        _ = stub.respond(to: login)
        _ = stub.respond(to: login)
        _ = stub.respond(to: post("/nowhere", "{}"))  // unmatched: not usage
        stub.reset()
        let usage = stub.usage(client: "app")
        #expect(usage.client == "app")
        #expect(
            usage.interactions == [
                ContractUsage.Interaction(file: "toy.yaml", interaction: "a wrong password is refused", method: "POST", path: "/login"),
                ContractUsage.Interaction(file: "toy.yaml", interaction: "login gives a token", method: "POST", path: "/login"),
            ]
        )
        #expect(
            stub.unexercised.map(\.interaction) == [
                "a revoked refresh token is refused", "the saved refresh token is accepted", "the token opens /me",
            ]
        )
        #expect(throws: ContractStub.Unexercised.self) { try stub.assertAllExercised() }
        do {
            try stub.assertAllExercised()
        } catch let error as ContractStub.Unexercised {
            #expect(
                error.description.hasPrefix(
                    "3 interactions were not exercised:\n  toy.yaml: a revoked refresh token is refused (POST /token/refresh)"))
        }
    }

    @Test func assertAllExercisedPassesWhenEveryInteractionAnswered() throws {
        // 'login gives a token' needs a state.
        let stub = try ContractStub(contracts: [try loadContract(ContractStubTests.toy)], activeStates: [])
        #expect(stub.unexercised.count == 4)
        _ = stub.respond(to: wrong)
        _ = stub.respond(to: post("/token/refresh", #"{"refresh_token": "revoked"}"#))
        #expect(stub.unexercised.map(\.interaction) == ["the saved refresh token is accepted", "the token opens /me"])
        #expect(throws: (any Error).self) { try stub.assertAllExercised() }
    }

    @Test func theFileIsSortedOneInteractionALineAndReadsBack() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("usage-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try ContractStub(contracts: [try loadContract(ContractStubTests.toy)])
        _ = first.respond(to: login)
        try first.writeUsage(to: folder, client: "UsageTestClient")
        let second = try ContractStub(contracts: [try loadContract(ContractStubTests.toy)])
        _ = second.respond(to: wrong)
        let file = try second.writeUsage(to: folder, client: "UsageTestClient")
        #expect(file.lastPathComponent == "UsageTestClient.json")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(
            text == """
                {
                  "client": "UsageTestClient",
                  "format": 1,
                  "interactions": [
                    {"file":"stub.yaml","interaction":"a wrong password is refused","method":"POST","path":"/login"},
                    {"file":"stub.yaml","interaction":"login gives a token","method":"POST","path":"/login"}
                  ]
                }

                """
        )
        let read = try ContractUsage(parsing: Data(text.utf8))
        #expect(read.interactions.count == 2)
        #expect(read.text == text)
        #expect(throws: ContractUsage.FormatError.self) { try ContractUsage(parsing: Data(#"{"interactions": []}"#.utf8)) }
    }

    @Test func aReplacingFaultIsNotUsageADelayIs() throws {
        let stub = try ContractStub(contracts: [try loadContract(ContractStubTests.toy)])
        try stub.inject(.status(503), for: "login gives a token")
        #expect(stub.respond(to: login).status == 503)
        #expect(stub.usage.interactions.isEmpty)
        try stub.inject(.delay(0.01), for: "login gives a token")
        #expect(stub.respond(to: login).status == 200)
        #expect(stub.usage.interactions.map(\.interaction) == ["login gives a token"])
    }
}

/// `DeployCheck`: breaking changes held against usage.
@Suite struct DeployCheckTests {
    @Test func aBreakingChangeToAUsedInteractionBlocksOneToAnUnusedOneDoesNot() throws {
        let old = try loadContract(ContractStubTests.toy, file: "old/toy.yaml")
        let changed = ContractStubTests.toy.replacingOccurrences(of: "status: 401\n", with: "status: 400\n")
        let new = try loadContract(changed, file: "new/toy.yaml")
        let changes = ContractDiff.changes(old: [old], new: [new])
        #expect(
            changes.filter { $0.impact == .breaking }.map(\.interaction) == [
                "a revoked refresh token is refused", "a wrong password is refused",
            ])
        let usesWrong = ContractUsage(
            client: "app",
            interactions: [.init(file: "toy.yaml", interaction: "a wrong password is refused", method: "POST", path: "/login")])
        let blocked = DeployCheck(changes: changes, usages: [usesWrong], old: [old])
        #expect(!blocked.deployable)
        #expect(blocked.broken.map(\.change.interaction) == ["a wrong password is refused"])
        #expect(blocked.unusedBreaking.map(\.interaction) == ["a revoked refresh token is refused"])
        #expect(blocked.text.hasPrefix("BROKEN  app  POST /login  breaking  old/toy.yaml:"))
        #expect(blocked.json["deployable"] == .bool(false))

        let usesLogin = ContractUsage(
            client: "app",
            interactions: [
                .init(file: "toy.yaml", interaction: "login gives a token", method: "POST", path: "/login"),
                .init(file: "gone.yaml", interaction: "x", method: "GET", path: "/x"),
            ])
        let allowed = DeployCheck(changes: changes, usages: [usesLogin], old: [old])
        #expect(allowed.deployable)
        #expect(allowed.unknown.map(\.used.file) == ["gone.yaml"])
        #expect(allowed.verdict.hasPrefix("can-i-deploy: yes — 2 breaking changes to interactions no client uses"))
    }
}
