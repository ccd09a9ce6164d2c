import ContractKit
import ContractRunner
import ContractStub
import ContractTestSupport
import Foundation
import Testing

/// `delivers:` against a live provider (the toy's password reset) and the stub.
@Suite struct DeliveryVerificationTests {
    /// Verifies `contracts` against the toy delivering `delivery` to a fresh receiver.
    func verify(
        _ contracts: [Contract], delivery: ToyProvider.ResetDelivery = .correct, stub: Bool = true, concurrency: Int = 4
    ) async throws -> VerificationReport {
        let receiver = try await DeliveryReceiver.start()
        defer { receiver.close() }
        let stubbed = stub ? try ContractStub(contracts: contracts) : nil
        return try await ToyProvider.withRunning(deliveryURL: receiver.url, delivery: delivery) { url in
            await ContractVerifier(
                live: HTTPTransport(baseURL: url), stub: stubbed, states: nil, concurrency: concurrency, deliveries: receiver.inbox
            ).verify(contracts)
        }
    }

    @Test func aDeliveryThatArrivesIsClaimedAndItsTokenUsedNext() async throws {
        let report = try await verify([try loadContract(ToyProvider.resetContract())])
        let text = TextReport.render(report, color: false)
        #expect(report.results.map(\.outcome) == [.passed, .passed], "\(text)")
        #expect(text.contains("✓ a reset is requested for alice  [live ✓ stub ✓ agreement ✓]"))
        #expect(text.contains("✓ the delivered token resets alice's password  [live ✓ stub ✓ agreement ✓]"))
    }

    @Test func aMissingDeliveryFailsLiveAfterItsDeadline() async throws {
        let contract = try loadContract(ToyProvider.resetContract(within: 0.5))
        let start = ContinuousClock.now
        let report = try await verify([contract], delivery: .none)
        #expect(ContinuousClock.now - start >= .milliseconds(500))
        let first = report.results[0]
        #expect(first.stub == .held)
        #expect(
            first.live
                == .failed([
                    Mismatch(
                        path: "delivery POST /deliveries", expected: "a delivery within 0.5 s",
                        actual: "no delivery to POST /deliveries within 0.5 s")
                ])
        )
        // Nothing was saved, so the token cannot be carried back.
        if case .error(let error)? = report.results[1].live {
            #expect(error.code == .undefinedVariable)
        } else {
            Issue.record("expected an error")
        }
    }

    @Test func aMalformedDeliveryFailsLiveNamingTheMismatch() async throws {
        // The claim waits its whole deadline for a delivery that matches, then names the closest.
        let report = try await verify([try loadContract(ToyProvider.resetContract(within: 15))], delivery: .malformed)
        let first = report.results[0]
        #expect(
            first.live
                == .failed([
                    Mismatch(path: "delivery POST /deliveries $.token", expected: "a string", actual: "integer 42")
                ])
        )
        #expect(
            TextReport.render(report, color: false).contains(
                "live delivery POST /deliveries $.token\n        - expected: a string\n        + actual:   integer 42"))
    }

    @Test func concurrentInteractionsClaimTheirOwnDeliveries() async throws {
        let contracts = try ["alice", "bob", "carol"].map { try loadContract(ToyProvider.resetContract(username: $0), file: "\($0).yaml") }
        let report = try await verify(contracts, stub: false, concurrency: 3)
        #expect(report.results.count == 6)
        #expect(report.succeeded, "\(TextReport.render(report, color: false))")
    }

    @Test func theStubSideMustDeliverWhatItsContractSays() async throws {
        // The stub delivers what the contract says; a verifier whose stub was built from a
        // contract without the delivery fails `stub` (and nothing live is needed).
        let contract = try loadContract(ToyProvider.resetContract())
        let report = await ContractVerifier(live: nil, stub: try ContractStub(contracts: [contract]), states: nil).verify([contract])
        #expect(report.succeeded, "\(TextReport.render(report, color: false))")

        let silent = try loadContract(ToyProvider.resetContract().replacingOccurrences(of: "path: /deliveries", with: "path: /elsewhere"))
        let failing = await ContractVerifier(live: nil, stub: try ContractStub(contracts: [silent]), states: nil).verify([contract])
        guard case .failed(let mismatches)? = failing.results[0].stub else {
            Issue.record("the stub check held: \(failing.results[0])")
            return
        }
        #expect(mismatches.map(\.path) == ["delivery POST /deliveries path"])
    }

    @Test func liveAndStubDeliveriesMustHaveTheSameShape() {
        let spec = Delivery(
            path: Template("/deliveries"), body: Matcher(.object(["kind": .literal("password_reset")])),
            location: SourceLocation(file: "r.yaml", line: 1))
        let live = ContractRequest(
            method: "POST", target: "/deliveries", body: Data(#"{"kind":"password_reset","token":"abc","sent_at":1}"#.utf8))
        let stub = ContractRequest(method: "POST", target: "/deliveries", body: Data(#"{"kind":"password_reset","token":7}"#.utf8))
        let differences = Agreement.compare(liveDeliveries: [live], stubDeliveries: [stub], specs: [spec], mode: .full)
        #expect(differences.map(\.path) == ["delivery POST /deliveries $.sent_at", "delivery POST /deliveries $.token"])
        #expect(Agreement.compare(liveDeliveries: [live], stubDeliveries: [stub], specs: [spec], mode: .declared) == [])
        #expect(Agreement.compare(liveDeliveries: [live], stubDeliveries: [nil], specs: [spec], mode: .full) == [])
    }

    @Test func theReceiverRecordsAndAnswers204() async throws {
        let receiver = try await DeliveryReceiver.start()
        defer { receiver.close() }
        #expect(receiver.url.hasPrefix("http://127.0.0.1:"))
        let response = try await HTTPTransport(baseURL: receiver.url).send(
            ContractRequest(method: "POST", target: "/deliveries", headers: [("X-Test", "1")], body: Data(#"{"a":1}"#.utf8))
        )
        #expect(response.status == 204)
        let received = try #require(receiver.inbox.received.first)
        #expect(received.request.target == "/deliveries")
        #expect(received.request.header("x-test") == "1")
        #expect(received.request.body == Data(#"{"a":1}"#.utf8))
    }

    @Test func theEnvironmentOffersTheReceiverAsDeliveryURL() async throws {
        let environment = try await ProviderEnvironment.prepare(nil, contractsDirectory: ".")
        defer { environment.remove() }
        let receiver = try #require(environment.deliveryReceiver)
        #expect(environment.variables["delivery_url"] == .string(receiver.url))
        #expect(try Template("--delivery-url {{delivery_url}}").render(environment.variables(port: 1)) == "--delivery-url \(receiver.url)")
    }
}

/// `contract probe` on a contract with `delivers:`: the variants run, deliveries are not awaited.
@Suite struct DeliveryProbeTests {
    @Test func probeRunsAndSaysWhyAValueSavedFromADeliveryIsMissing() async throws {
        let contract = try loadContract(ToyProvider.resetContract())
        let report = try await ToyProvider.withRunning { url in
            await ContractProber(live: HTTPTransport(baseURL: url), contracts: [contract], states: nil, deadline: .seconds(30)).probe()
        }
        #expect(report.interactions.count == 2)
        #expect(!report.interactions[0].variants.isEmpty)
        #expect(report.interactions[1].note?.contains("undefined variable 'reset'") == true)
        #expect(report.interactions[1].note?.contains("saved from a delivery: probe does not wait for deliveries") == true)
    }
}
