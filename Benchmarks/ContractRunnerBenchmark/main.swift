// Prints how many interactions per second `ContractVerifier` checks when the provider
// answers instantly: once with an in-process responder (the tool's own cost), once over
// loopback HTTP to a trivial Hummingbird server.
//
//   swift run -c release ContractRunnerBenchmark [interactions]
import ContractKit
import ContractRunner
import ContractTestSupport
import Foundation
import Hummingbird
import NIOCore

/// Answers every request at once with the same login-like body.
struct InstantResponder: ContractTransport {
    static let body = Data(
        #"{"access_token":"eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiIxIn0.c2ln","token_type":"Bearer","expires_in":900,"refresh_token":"0123456789012345678901234567890123456789abc"}"#
            .utf8)

    func send(_ request: ContractRequest) async throws -> ContractResponse {
        ContractResponse(status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")], body: Self.body)
    }
}

/// `files` contracts of `perFile` interactions each: every interaction saves the refresh
/// token and the next sends it back, with typed matchers on the body.
func makeContracts(files: Int, perFile: Int) throws -> [Contract] {
    var contracts: [Contract] = []
    for file in 0..<files {
        var yaml = "name: Benchmark \(file)\ninteractions:\n"
        for index in 0..<perFile {
            let token = index == 0 ? "first" : "{{refresh}}"
            yaml += """
                  - name: interaction \(index)
                    request:
                      method: POST
                      path: /login
                      headers: { Content-Type: application/json }
                      json: { username: alice, password: pw, refresh_token: "\(token)" }
                    response:
                      status: 200
                      headers: { Cache-Control: no-store }
                      json:
                        access_token: { match: jwt }
                        token_type: Bearer
                        expires_in: { match: integer, min: 1 }
                        refresh_token: { match: string, min_length: 43 }
                    save: { refresh: $.refresh_token }

                """
        }
        let (contract, diagnostics) = ContractLoader.parse(yaml: yaml, file: "benchmark-\(file).yaml")
        guard let contract, diagnostics.isEmpty else { throw CancellationError() }
        contracts.append(contract)
    }
    return contracts
}

func measure(_ label: String, contracts: [Contract], transport: some ContractTransport, runs: Int = 5) async {
    let verifier = ContractVerifier(live: transport, states: nil)
    var rates: [Double] = []
    var count = 0
    for _ in 0..<runs {
        let report = await verifier.verify(contracts)
        guard report.succeeded else {
            print("\(label): verification failed: \(report.failedCount) failures")
            return
        }
        count = report.results.count
        rates.append(Double(count) / report.duration)
    }
    rates.sort()
    print(
        String(
            format: "%@: %d interactions, median %.0f interactions/s (min %.0f, max %.0f)", label, count, rates[rates.count / 2], rates[0],
            rates[rates.count - 1]))
}

let total = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 1000
let contracts = try makeContracts(files: 10, perFile: max(1, total / 10))
await measure("in-process responder", contracts: contracts, transport: InstantResponder())

let router = Router()
router.post("/login") { _, _ in
    Response(
        status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
        body: .init(byteBuffer: ByteBuffer(bytes: InstantResponder.body))
    )
}
do {
    try await EphemeralServer.withRunning(router) { baseURL in
        await measure("loopback HTTP (Hummingbird)", contracts: contracts, transport: HTTPTransport(baseURL: baseURL))
    }
} catch {
    print("loopback HTTP (Hummingbird): the server did not start: \(error)")
}
