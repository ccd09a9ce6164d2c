import ContractKit
import ContractRunner
import ContractStub
import ContractTestSupport
import Foundation
import Testing

/// `webauthn_…` matchers in a run: verify and probe against the toy's passkeys
/// (``ToyProvider/webAuthnContract``), where verify's software authenticator registers and
/// signs, live and on the stub, and the stub verifies as a relying party.
@Suite struct WebAuthnVerificationTests {
    static func credential(_ request: ContractRequest?) -> JSONValue? {
        guard let body = request?.body else { return nil }
        return try? JSONValue(parsing: body)["credential"]
    }

    @Test func aRegistrationAndItsAssertionHoldLiveOnTheStubAndInAgreement() async throws {
        let contract = try loadContract(ToyProvider.webAuthnContract)
        let report = try await verifiedOnTheToy(contract)
        #expect(report.results.count == 7)
        expectEveryInteractionHeld(report)
        // The replay sends the assertion the login sent, and is refused.
        let signedIn = try #require(Self.credential(report.results[4].request))
        #expect(Self.credential(report.results[5].request) == signedIn)
        #expect(report.results[5].response?.status == 401)
        #expect(report.results[5].stubResponse?.status == 401)
    }

    @Test func anAssertionWithoutARegistrationInTheRunIsAClearError() async throws {
        let yaml = ToyProvider.webAuthnContract.replacingOccurrences(
            of: "authenticator: mia-phone } }\n    response: { status: 200", with: "authenticator: bob-key } }\n    response: { status: 200"
        )
        #expect(yaml != ToyProvider.webAuthnContract)
        let contract = try loadContract(yaml)
        let report = try await verifiedOnTheToy(contract)
        let login = report.results[4]
        guard case .error(let error)? = login.live, case .error(let stubError)? = login.stub else {
            Issue.record("the login ran: \(login.outcome)")
            return
        }
        #expect(error.code == .noCredential && stubError.code == .noCredential)
        #expect(error.description.contains("the authenticator 'bob-key' has registered no credential in this run"), "\(error)")
        #expect(!report.succeeded)
    }

    @Test func probeRegistersAndSignsInItsSequenceAndVariesTheCredential() async throws {
        let contract = try loadContract(ToyProvider.webAuthnContract)
        let (report, statuses) = try await ToyProvider.withRunning { url in
            let transport = TOTPVerificationTests.Recording(HTTPTransport(baseURL: url))
            let report = await ContractProber(live: transport, contracts: [contract], states: nil, deadline: .seconds(30)).probe()
            return (report, transport.exchanges.withLock { $0.map(\.status) })
        }
        // The file's sequence first: the registration and the login taken, the replay and the malformed credential refused.
        #expect(statuses.prefix(7) == [200, 200, 201, 200, 200, 401, 400], "\(statuses.prefix(7))")
        // Every variant of the passkey routes is answered with a declared error (the toy's
        // password login, which the sequence starts with, is not as careful).
        for probe in report.interactions.dropFirst() {
            for variant in probe.variants {
                #expect(variant.failure == nil, "\(probe.interaction.name): \(variant.name): \(variant.failure ?? "")")
            }
        }
        let variants = report.interactions[4].variants.map(\.name)
        #expect(variants.contains("credential.response.signature empty") && variants.contains("credential missing"), "\(variants)")
    }
}
