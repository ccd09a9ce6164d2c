import ContractKit
import ContractRunner
import ContractStub
import ContractTestSupport
import Foundation
import Testing
import WebForms

/// `form:`, `multipart:` and `basic_auth` in a run: verify and probe against the toy's OAuth
/// routes (``ToyProvider/oauthContract``), in process.
@Suite struct FormVerificationTests {
    @Test func formsPartsAndCredentialsHoldLiveOnTheStubAndInAgreement() async throws {
        let contract = try loadContract(ToyProvider.oauthContract)
        let report = try await verifiedOnTheToy(contract)
        #expect(report.results.count == 5)
        expectEveryInteractionHeld(report)
        // The saved token went into the next form; the credentials were sent as Basic.
        #expect(String(decoding: report.results[3].request?.body ?? Data(), as: UTF8.self) == "code=tok-oauth-123")
        #expect(report.results[0].request?.header("Authorization") == BasicCredentials.header(username: "client-1", password: "s3cret"))
    }

    @Test func aFormResponseTheContractGetsWrongFailsLiveAndAgreement() async throws {
        let wrong = ToyProvider.oauthContract.replacingOccurrences(
            of: "token_type: bearer", with: "token_type: mac\n        scope: { match: string }")
        let contract = try loadContract(wrong)
        let report = try await verifiedOnTheToy(contract)
        let result = report.results[3]
        #expect(result.live?.held == false)
        let problems = Self.mismatches(result.live)
        #expect(problems.contains(#"form token_type: expected "mac", got string "bearer""#), "\(problems)")
        #expect(problems.contains("form scope: expected a string, got nothing (field missing)"), "\(problems)")
        // The stub answers with the contract's fields, the live side without scope.
        #expect(Self.mismatches(result.agreement) == ["form.scope: expected missing (live), got present (stub)"])
    }

    static func mismatches(_ check: CheckResult?) -> [String] {
        if case .failed(let found)? = check { found.map(\.description) } else { [] }
    }

    @Test func agreementComparesFormFieldsAsAFlatObject() throws {
        let spec = ResponseSpec(
            status: 200, body: .form(FormBody([FormField(name: "a", value: Matcher(.string(minLength: nil, maxLength: nil)))])))
        func response(_ body: String) -> ContractResponse { ContractResponse(status: 200, headers: [], body: Data(body.utf8)) }
        #expect(
            Agreement.compare(live: response("a=1&b=2"), stub: response("a=x"), spec: spec, mode: .full).map(\.description) == [
                "form.b: expected present (live), got missing (stub)"
            ])
        #expect(Agreement.compare(live: response("a=1&b=2"), stub: response("a=x"), spec: spec, mode: .declared) == [])
    }

    @Test func formVariantsDropRepeatAndEmptyEachRequiredFieldAndSendTheFormAsJSON() throws {
        let request = ContractRequest(
            method: "POST", target: "/oauth/token", headers: [("Content-Type", FormBody.contentType)],
            body: Data("grant_type=client_credentials&scope=read".utf8))
        let variants = ProbeVariant.derive(from: request, limits: .init(longString: 20, oversizedBody: 300), optional: ["scope"])
        #expect(
            variants.map(\.name) == [
                "form field grant_type missing", "form field grant_type duplicated", "form field grant_type empty",
                "form field scope duplicated", "Content-Type application/json",
                "Content-Type text/plain", "a body of 300 bytes",
            ]
        )
        func body(_ name: String) throws -> String {
            String(decoding: try #require(variants.first { $0.name == name }?.request.body), as: UTF8.self)
        }
        #expect(try body("form field grant_type missing") == "scope=read")
        #expect(try body("form field scope duplicated") == "grant_type=client_credentials&scope=read&scope=read")
        let json = try #require(variants.first { $0.name == "Content-Type application/json" })
        #expect(json.request.header("content-type") == "application/json" && json.request.body == request.body)
        // A field written optional: true is not probed missing or empty (an empty one is as if omitted).
        let contract = try loadContract(ToyProvider.oauthContract)
        #expect(ProbeVariant.optionalFields(in: [contract])["POST /oauth/token"] == ["scope"])
    }

    @Test func probeFindsEveryFormAndMultipartVariantRefused() async throws {
        let contract = try loadContract(ToyProvider.oauthContract)
        let report = try await ToyProvider.withRunning { url in
            await ContractProber(live: HTTPTransport(baseURL: url), contracts: [contract], states: nil, deadline: .seconds(30)).probe()
        }
        #expect(report.succeeded, "\(ProbeTextReport.render(report, color: false))")
        let names = report.interactions[0].variants.map(\.name)
        #expect(
            names.contains("form field grant_type duplicated") && names.contains("Content-Type application/json")
                && !names.contains("form field scope missing"))
    }

    /// The code the sequence spent, sent again: the toy refuses it, as RFC 6749 §4.1.2 says;
    /// a client_credentials request has no such variant.
    @Test func aSpentCodeSentAgainIsProbedAndRefused() async throws {
        let request = ContractRequest(
            method: "POST", target: "/toy/token", headers: [("Content-Type", FormBody.contentType)],
            body: Data("grant_type=authorization_code&code=c".utf8))
        let variants = ProbeVariant.derive(from: request, limits: .init(longString: 20, oversizedBody: 300))
        #expect(variants.first?.name == "the code sent again (RFC 6749 §4.1.2: a code is used once)")
        #expect(variants.first?.request == request)
        let contract = try loadContract(ToyProvider.browserContract)
        let report = try await ToyProvider.withRunning { url in
            await ContractProber(live: HTTPTransport(baseURL: url), contracts: [contract], states: nil, deadline: .seconds(30)).probe()
        }
        let replay = report.interactions.flatMap(\.variants).first { $0.name.hasPrefix("the code sent again") }
        #expect(replay?.status == 400 && replay?.errorCode == "invalid_grant", "\(ProbeTextReport.render(report, color: false))")
    }

    /// A code exchange's verifier changed is sent on a code of its own, from the interactions
    /// before it replayed, so the refusal is the PKCE check's (RFC 7636 §4.6), not the spent
    /// code's: each variant's code is new, and the toy, which checks the verifier, refuses it.
    @Test func theVerifiersVariantsMeetAFreshCode() async throws {
        let contract = try loadContract(ToyProvider.browserContract)
        let report = try await ToyProvider.withRunning { url in
            await ContractProber(live: HTTPTransport(baseURL: url), contracts: [contract], states: nil, deadline: .seconds(30)).probe()
        }
        let rendered = ProbeTextReport.render(report, color: false)
        let variants = report.interactions.flatMap(\.variants)
        func code(_ variant: ProbeReport.VariantResult?) -> String? {
            variant?.request.body.flatMap(FormEncoding.decode)?.first { $0.name == "code" }?.value
        }
        let spent = try #require(code(variants.first { $0.name.hasPrefix("the code sent again") }))
        let fresh = variants.filter {
            ["form field code_verifier missing", "form field code_verifier empty", "a code_verifier of another challenge"].contains($0.name)
        }
        #expect(fresh.count == 3, "\(rendered)")
        #expect(Set(fresh.compactMap(code)).count == 3 && !fresh.contains { code($0) == spent }, "\(rendered)")
        // (The toy's contract declares no error shape: only the status and code are its.)
        #expect(fresh.allSatisfy { $0.status == 400 && $0.errorCode == "invalid_grant" }, "\(rendered)")
        // The variant of another challenge keeps the verifier's form.
        let other = try #require(fresh.last?.request.body.flatMap(FormEncoding.decode))
        #expect(other.first { $0.name == "code_verifier" }?.value == String(repeating: "p", count: 43))
    }
}
