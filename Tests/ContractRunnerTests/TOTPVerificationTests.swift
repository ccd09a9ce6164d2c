import ContractKit
import ContractRunner
import ContractStub
import ContractTestSupport
import Foundation
import Synchronization
import Testing

/// `totp` matchers in a run: verify and probe against the toy, whose TOTP enrols a random
/// key and takes each code once (``ToyProvider/totpContract``).
@Suite struct TOTPVerificationTests {
    static func code(_ request: ContractRequest?) -> String? {
        guard let body = request?.body, case .string(let code)? = try? JSONValue(parsing: body)["code"] else { return nil }
        return code
    }

    @Test func codesHoldLiveOnTheStubAndInAgreement() async throws {
        let contract = try loadContract(ToyProvider.totpContract)
        let report = try await verifiedOnTheToy(contract)
        #expect(report.results.count == 5)
        expectEveryInteractionHeld(report)
        // Two codes within seconds of each other are two steps; the replay sends the first again.
        let first = try #require(Self.code(report.results[1].request))
        #expect(Self.code(report.results[2].request) != first)
        #expect(Self.code(report.results[3].request) == first)
        #expect(report.results[3].response?.status == 401)
    }

    /// A transport that keeps what it sent and got.
    final class Recording: ContractTransport {
        let inner: HTTPTransport
        let exchanges = Mutex<[(request: ContractRequest, status: Int)]>([])

        init(_ inner: HTTPTransport) { self.inner = inner }

        func send(_ request: ContractRequest) async throws -> ContractResponse {
            let response = try await inner.send(request)
            exchanges.withLock { $0.append((request, response.status)) }
            return response
        }
    }

    @Test func probeSendsValidCodesInItsSequenceAndVariesThem() async throws {
        let contract = try loadContract(ToyProvider.totpContract)
        let (report, exchanges) = try await ToyProvider.withRunning { url in
            let transport = Recording(HTTPTransport(baseURL: url))
            let report = await ContractProber(live: transport, contracts: [contract], states: nil, deadline: .seconds(30)).probe()
            return (report, transport.exchanges.withLock { $0.map { ($0.request.target, $0.status) } })
        }
        // The file's sequence first: enrolment, two fresh codes taken, the replay and a wrong code refused.
        #expect(exchanges.prefix(5).map(\.1) == [200, 200, 200, 401, 401], "\(exchanges.prefix(5))")
        #expect(report.succeeded, "\(ProbeTextReport.render(report, color: false))")
        let variants = report.interactions[1].variants.map(\.name)
        #expect(variants.contains("code a number") && variants.contains("code too long (10000 characters)"))
    }
}
