import ContractKit
import ContractRunner
import ContractStub
import ContractTestSupport
import Foundation
import Testing

/// `contract verify` with variants: live and stub may answer different ones and agree, and a
/// variant the provider never answered with is reported (a failure unless allowed).
@Suite struct VariantVerificationTests {
    /// The toy's login, allowing a lower-case token type and a scope it never sends.
    static let contract = """
        name: Toy
        interactions:
          - name: login gives a token
            request: { method: POST, path: /login, json: { username: alice, password: secret } }
            response:
              status: 200
              json:
                access_token: { match: string, min_length: 3 }
                token_type: { match: one_of, of: [Bearer, bearer] }
                expires_in: { match: integer, min: 1 }
                scope: { match: string, example: profile, optional: true }
        """

    @Test func unseenVariantsAreReportedAndFailUnlessAllowed() async throws {
        let contract = try loadContract(Self.contract)
        let report = try await verifiedOnTheToy(contract)
        // The stub answers with a scope the toy leaves out: both allowed, so they agree.
        #expect(report.results.map(\.outcome) == [.passed])
        #expect(
            report.unseenVariants.map { "\($0.place): \($0.variant)" } == [
                "POST /login 200 $.scope: never present",
                #"POST /login 200 $.token_type: never one_of alternative 2: "bearer""#,
            ])
        #expect(!report.succeeded)
        let text = TextReport.render(report, color: false)
        #expect(text.contains("Variants the contracts allow and the provider never answered with:"))
        #expect(text.hasSuffix("1 passed, 0 failed, 2 variants never seen live"))
        #expect(JUnitReport.render(report).contains(#"<testsuite name="variants never seen live" tests="2" failures="2">"#))
        let json = try JSONValue(parsing: Data(JSONReport.render(report).utf8))
        #expect(json["succeeded"] == false)
        let allowed = report.allowingUnseenVariants()
        #expect(allowed.succeeded)
        #expect(TextReport.render(allowed, color: false).contains("never answered with (allowed):"))
    }

    @Test func aStubOnlyRunJudgesNoVariants() async throws {
        let contract = try loadContract(Self.contract)
        let report = await ContractVerifier(live: nil, stub: try ContractStub(contracts: [contract]), states: nil).verify([contract])
        #expect(report.unseenVariants.isEmpty)
        #expect(report.succeeded)
    }
}
