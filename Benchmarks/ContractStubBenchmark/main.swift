// Prints the median round trip of a login through the stub: directly, through the
// URLProtocol adapter (beside URLSession with an empty URLProtocol, and with one giving the
// login's answer made once: the adapter's bound), and through the local HTTP server; and the local server's
// requests per second with 8 concurrent clients. Uses authd's own contracts. First, the
// direct round trip with 10, 200 and 1,000 interactions: flat when the stub finds its
// candidates by method and path; and one Ed25519 signature, the part of a login's work
// no stub that mints its token can skip. The three URLSession variants are measured in
// turn, a hundred requests at a time, so that the machine's drift over the run falls on
// all three alike.
//
//   swift run -c release ContractStubBenchmark [requests]
import ContractKit
import ContractStub
import ContractStubServer
import Crypto
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

let count = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 2000
let contracts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("contracts").path
let stub = try ContractStub(directory: contracts)
let body = Data(#"{"username": "alice", "password": "correct horse battery staple"}"#.utf8)

func microseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
}

/// How long one run of `once` takes, in microseconds. It stays on the main actor, where the
/// closures are made, so no executor hop enters the timings.
@MainActor
func timed(_ once: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await once()
    return microseconds(ContinuousClock.now - start)
}

/// Times `once` `count` times and prints the median and p99 under `label`.
@MainActor
func measure(_ label: String, _ once: () async throws -> Void) async rethrows {
    var samples: [Double] = []
    for _ in 0..<count {
        samples.append(try await timed(once))
    }
    report(label, samples)
}

/// Prints the median and p99 of `samples` under `label`.
func report(_ label: String, _ samples: [Double]) {
    let sorted = samples.sorted()
    print(
        String(
            format: "%@: median %.1f µs, p99 %.1f µs (%d requests)", label, sorted[sorted.count / 2], sorted[sorted.count * 99 / 100],
            sorted.count))
}

/// Times each of `variants` `count` times, taking them in turn `batch` at a time, and
/// prints each one's median and p99.
@MainActor
func measureInTurn(_ variants: [(label: String, once: () async throws -> Void)], batch: Int = 100) async throws {
    var samples = Array(repeating: [Double](), count: variants.count)
    for _ in 0..<max(1, count / batch) {
        for (index, variant) in variants.enumerated() {
            for _ in 0..<batch {
                samples[index].append(try await timed(variant.once))
            }
        }
    }
    for (index, variant) in variants.enumerated() {
        report(variant.label, samples[index])
    }
}

func loginRequest(_ base: URL) -> URLRequest {
    var request = URLRequest(url: base.appendingPathComponent("login"))
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.httpBody = body
    return request
}

// Scaling with the number of interactions: one literal path each, the request aimed at
// the last one.
func generated(_ size: Int) throws -> ContractStub {
    var yaml = "name: Items\ninteractions:\n"
    for index in 0..<size {
        yaml += "  - name: item \(index)\n    request: { method: GET, path: /items/\(index) }\n"
        yaml += "    response:\n      status: 200\n      json: { id: \(index), name: item }\n"
    }
    let (contract, diagnostics) = ContractLoader.parse(yaml: yaml, file: "items.yaml")
    guard let contract, diagnostics.isEmpty else { throw CocoaError(.fileReadCorruptFile) }
    return try ContractStub(contracts: [contract])
}
// The three sizes in turn, a hundred requests at a time: the machine's speed moves between
// two states (4.6 and 8 µs a request, seen minutes apart), and measured one after the other
// a change of state between two sizes read as growth with size.
var sizes: [(label: String, once: () async throws -> Void)] = []
for size in [10, 200, 1000] {
    let sized = try generated(size)
    let request = ContractRequest(method: "GET", target: "/items/\(size - 1)")
    sizes.append(("stub.respond with \(size) interactions", { precondition(sized.respond(to: request).status == 200) }))
}
try await measureInTurn(sizes)

// Directly.
let contractRequest = ContractRequest(method: "POST", target: "/login", headers: [("Content-Type", "application/json")], body: body)
await measure("stub.respond (no adapter)") {
    precondition(stub.respond(to: contractRequest).status == 200)
}
// The signature of a token like the login's (its header and claims), alone.
let signingKey = Curve25519.Signing.PrivateKey()
let signingInput = Data(
    #"eyJhbGciOiJFZERTQSIsImtpZCI6InN0dWIiLCJ0eXAiOiJKV1QifQ.eyJleHAiOjE3OTU1NzcyODMsImlhdCI6MTc5NTU3NjM4MywiaXNzIjoiY29udHJhY3Qtc3R1YiIsImp0aSI6IjUzNmEyOTBlLTk0MzgtNDdmOS1hNjhlLTQ2MTJkMTkxYzUyNiIsInN1YiI6InN0dWItdXNlciJ9"#
        .utf8
)
try await measure("one Ed25519 signature") {
    let signature = try signingKey.signature(for: signingInput)
    precondition(signature.count == 64)
}

// The floor: a URLProtocol that answers at once, without any stub.
final class InstantProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }
    override func startLoading() {
        guard let url = request.url, let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: [:]) else {
            return
        }
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: Data("{}".utf8))
        client?.urlProtocolDidFinishLoading(self)
    }
    override func stopLoading() {}
}
// The floor with the login's own answer (its status, headers and body, made once): what
// URLSession's handling of that answer costs, apart from the stub's work.
enum Canned {
    static let answer: ContractResponse? = {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("contracts").path
        let request = ContractRequest(
            method: "POST", target: "/login", headers: [("Content-Type", "application/json")],
            body: Data(#"{"username": "alice", "password": "correct horse battery staple"}"#.utf8))
        return try? ContractStub(directory: folder).respond(to: request)
    }()
}
final class CannedProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }
    override func startLoading() {
        guard let url = request.url, let answer = Canned.answer else { return }
        var headers: [String: String] = [:]
        for header in answer.headers { headers[header.name] = header.value }
        guard let response = HTTPURLResponse(url: url, statusCode: answer.status, httpVersion: "HTTP/1.1", headerFields: headers) else {
            return
        }
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: answer.body)
        client?.urlProtocolDidFinishLoading(self)
    }
    override func stopLoading() {}
}
let cannedConfiguration = URLSessionConfiguration.ephemeral
cannedConfiguration.protocolClasses = [CannedProtocol.self]
let cannedSession = URLSession(configuration: cannedConfiguration)

let instantConfiguration = URLSessionConfiguration.ephemeral
instantConfiguration.protocolClasses = [InstantProtocol.self]
let instantSession = URLSession(configuration: instantConfiguration)

// URLProtocol.
let session = stub.urlSession
guard let anyHost = URL(string: "https://auth.example") else { exit(1) }
try await measureInTurn([
    (
        "URLProtocol adapter",
        {
            let (_, response) = try await session.data(for: loginRequest(anyHost))
            precondition((response as? HTTPURLResponse)?.statusCode == 200)
        }
    ),
    (
        "URLSession with an empty URLProtocol (the platform's floor)",
        {
            _ = try await instantSession.data(for: loginRequest(anyHost))
        }
    ),
    (
        "URLSession with a URLProtocol giving the login's answer, made once",
        {
            let (_, response) = try await cannedSession.data(for: loginRequest(anyHost))
            precondition((response as? HTTPURLResponse)?.statusCode == 200)
        }
    ),
])

// Local server.
try await ContractStubServer.withRunning(stub) { base in
    try await measure("local server (URLSession client)") {
        let (_, response) = try await URLSession.shared.data(for: loginRequest(base))
        precondition((response as? HTTPURLResponse)?.statusCode == 200)
    }

    let clients = 8
    let start = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<clients {
            group.addTask {
                for _ in 0..<(count / clients) {
                    _ = try await URLSession.shared.data(for: loginRequest(base))
                }
            }
        }
        try await group.waitForAll()
    }
    let seconds = microseconds(ContinuousClock.now - start) / 1e6
    print(String(format: "local server: %.0f requests/s with %d concurrent clients", Double(count / clients * clients) / seconds, clients))
}
