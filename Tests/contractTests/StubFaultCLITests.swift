import Foundation
import ProcessKit
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `contract stub --fault`: the served stub answers the fault, then the contract.
@Suite struct StubFaultCLITests {
    @Test func aStatusFaultThenTheContractsAnswer() async throws {
        let child = try ChildProcess(
            executable: try ContractCLITests.binary("contract"),
            arguments: [
                "stub", AuthdContractTests.contracts.path, "--port", "0",
                "--fault", "valid credentials return a bearer token pair:status=503,retry-after=1,times=1",
            ]
        )
        defer { child.send(SIGTERM) }
        let base = try await ContractCLITests.announcement("contract stub listening on ", of: child).flatMap(URL.init(string:))
        var request = URLRequest(url: try #require(base).appendingPathComponent("login"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"username": "alice", "password": "correct horse battery staple"}"#.utf8)
        let session = URLSession(configuration: .ephemeral)
        let (_, first) = try await session.data(for: request)
        #expect((first as? HTTPURLResponse)?.statusCode == 503)
        #expect((first as? HTTPURLResponse)?.value(forHTTPHeaderField: "Retry-After") == "1")
        let (_, second) = try await session.data(for: request)
        #expect((second as? HTTPURLResponse)?.statusCode == 200)
        child.send(SIGTERM)
        #expect(await child.waitForExit() == 0)
    }

    @Test func aBadFaultExitsTwoBeforeServing() async throws {
        for spec in ["valid credentials return a bearer token pair:explode", "no such interaction:reset"] {
            let child = try ChildProcess(
                executable: try ContractCLITests.binary("contract"),
                arguments: ["stub", AuthdContractTests.contracts.path, "--port", "0", "--fault", spec]
            )
            #expect(await child.waitForExit() == 2, "\(spec)")
            #expect(
                child.standardError.hasPrefix("--fault '") || child.standardError.hasPrefix("--fault no interaction"),
                "\(child.standardError)")
        }
    }
}
