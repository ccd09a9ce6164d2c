import ContractStub
import ContractStubServer
import Foundation
import LoginClient
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the client waited, instead of waiting: the retry policy's injected sleep.
final class Waits: Sendable {
    private let waits = Mutex<[TimeInterval]>([])

    func add(_ seconds: TimeInterval) {
        waits.withLock { $0.append(seconds) }
    }

    var all: [TimeInterval] { waits.withLock { $0 } }
}

/// The client's retry policy and timeout against faults injected into the stub.
@Suite struct LoginAPIResilienceTests {
    static let login = "valid credentials return a bearer token pair"
    let stub: ContractStub
    let waits = Waits()
    let base: URL

    init() throws {
        stub = try ContractStub(directory: authdContracts)
        base = try #require(URL(string: "https://auth.example"))
    }

    func api(maxAttempts: Int = 3, timeout: TimeInterval = 15, session: URLSession? = nil, base: URL? = nil) -> LoginAPI {
        let waits = self.waits
        return LoginAPI(
            baseURL: base ?? self.base, session: session ?? stub.urlSession,
            retry: RetryPolicy(maxAttempts: maxAttempts, timeout: timeout, sleep: { waits.add($0) })
        )
    }

    @Test func a503IsRetriedAfterItsRetryAfterAndTheSecondAttemptSucceeds() async throws {
        try stub.inject(.status(503, retryAfter: 2), for: Self.login, times: 1)
        let session = try await api().login(username: "alice", password: "correct horse battery staple")
        #expect(session.expiresIn == 900)
        #expect(waits.all == [2])
        #expect(stub.exchanges.map(\.response.status) == [503, 200])
        #expect(stub.exchanges.last?.interaction == Self.login)
    }

    @Test func theClientGivesUpAfterItsAttempts() async throws {
        try stub.inject(.status(503, retryAfter: 120), for: Self.login, times: 5)
        await #expect(throws: LoginError.serviceUnavailable(retryAfter: 120)) {
            try await api(maxAttempts: 3).login(username: "alice", password: "correct horse battery staple")
        }
        #expect(waits.all == [30, 30], "Retry-After is capped at the policy's maxDelay")
        #expect(stub.pendingFaults.first?.remaining == 2)
    }

    @Test func anAnswerLaterThanTheTimeoutIsALoginErrorNotAHang() async throws {
        try stub.inject(.delay(60), for: Self.login)
        let clock = ContinuousClock()
        let start = clock.now
        await #expect(throws: LoginError.timedOut) {
            try await api(timeout: 0.1).login(username: "alice", password: "correct horse battery staple")
        }
        // Half the delay: under the whole suite's load (every test's tasks on two threads) the
        // 0.1 s timeout has taken 16 s to fire.
        #expect(clock.now - start < .seconds(30), "the 0.1 s timeout, not the 60 s delay")
    }

    @Test func throughTheLocalServerToo() async throws {
        try stub.inject(.status(503), for: Self.login, times: 1)
        try await ContractStubServer.withRunning(stub) { url in
            let session = try await api(session: URLSession(configuration: .ephemeral), base: url)
                .login(username: "alice", password: "correct horse battery staple")
            #expect(session.refreshToken.count == 43)
        }
        #expect(waits.all == [1], "no Retry-After: the policy's default delay")
    }
}
