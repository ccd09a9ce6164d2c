import ContractKit
import ContractRunner
import ContractStub
import ContractTestSupport
import Testing

/// `contract` verified against the toy provider (live) and a stub built from it, with no
/// provider states: what the format tests run.
func verifiedOnTheToy(_ contract: Contract) async throws -> VerificationReport {
    try await ToyProvider.withRunning { url in
        await ContractVerifier(live: HTTPTransport(baseURL: url), stub: try ContractStub(contracts: [contract]), states: nil).verify([
            contract
        ])
    }
}

/// Expects every interaction of `report` to have held live, on the stub and in agreement,
/// and the run to have succeeded.
func expectEveryInteractionHeld(_ report: VerificationReport, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    for result in report.results {
        #expect(
            result.live?.held == true && result.stub?.held == true && result.agreement?.held == true,
            "\(result.interaction.name): \(result.outcome)",
            sourceLocation: sourceLocation
        )
    }
    #expect(report.succeeded, sourceLocation: sourceLocation)
}
