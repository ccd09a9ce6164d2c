import ContractKit
import ContractRunner
import ContractStub
import ContractTestSupport
import Foundation
import Testing

/// A browser flow in a run (``ToyProvider/browserContract``): the page's token saved by a
/// CSS selector, the session cookie carried by the jar, the redirect's `Location` read as a
/// URL, the PKCE verifier checked against the challenge, a redirect to the provider followed.
@Suite struct BrowserVerificationTests {
    @Test func theFlowHoldsLiveOnTheStubAndInAgreement() async throws {
        let report = try await verifiedOnTheToy(try loadContract(ToyProvider.browserContract))
        #expect(report.results.count == 4)
        expectEveryInteractionHeld(report)
        // The jar sent the page's cookie with the form, without the contract writing it.
        let signIn = try #require(report.results[1].request)
        #expect(signIn.header("Cookie")?.hasPrefix("__Host-toy=") == true)
        #expect(String(decoding: signIn.body ?? Data(), as: UTF8.self).hasPrefix("csrf="))
        // The challenge the contract sent is the S256 of its verifier (RFC 7636 Appendix B).
        #expect(report.results[0].request?.target.contains("code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM") == true)
    }

    @Test func withoutTheCookieTheSignInFailsLive() async throws {
        // A Cookie the contract writes itself replaces the jar's.
        let forged = ToyProvider.browserContract.replacingOccurrences(
            of: "      path: /toy/sign-in\n", with: "      path: /toy/sign-in\n      headers: { Cookie: __Host-toy=forged }\n")
        let report = try await verifiedOnTheToy(try loadContract(forged))
        #expect(report.results[1].live?.held == false)
        #expect(Self.mismatches(report.results[1].live).contains("status: expected 303, got 403"))
    }

    @Test func aLocationAndACookieThatBreakTheContractAreNamed() async throws {
        let wrong = ToyProvider.browserContract
            .replacingOccurrences(of: "url: \"https://app.example/cb\"", with: "url: \"https://app.example/callback\"")
            .replacingOccurrences(
                of: "{ http_only: true, secure: true, same_site: Lax, path: / }",
                with: "{ http_only: true, secure: true, same_site: Strict, path: / }")
        let report = try await verifiedOnTheToy(try loadContract(wrong))
        let problems = Self.mismatches(report.results[1].live)
        #expect(
            problems.contains(#"location: expected "https://app.example/callback", got string "https://app.example/cb""#), "\(problems)")
        #expect(problems.contains("cookie __Host-toy SameSite: expected Strict, got Lax"), "\(problems)")
    }

    @Test func aVerifierOfAnotherChallengeIsRefusedLiveAndByTheStub() async throws {
        // The verify run refuses to send a verifier that does not answer the challenge it sent…
        let other = ToyProvider.browserContract.replacingOccurrences(
            of: "challenge: \"{{challenge}}\", example: dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
            with: "challenge: \"{{challenge}}\", example: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
        let report = try await verifiedOnTheToy(try loadContract(other))
        #expect(report.results[2].live?.held == false)
        #expect("\(report.results[2].outcome)".contains("S256 is not the challenge"))
        // …and the stub, as an app's authorization server, takes only the verifier of the
        // challenge the app sent.
        let contract = try loadContract(ToyProvider.browserContract)
        let stub = try ContractStub(contracts: [contract])
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        _ = stub.respond(to: ContractRequest(method: "GET", target: "/toy/authorize?state=s1&code_challenge=\(challenge)"))
        let redirect = stub.respond(
            to: ContractRequest(
                method: "POST", target: "/toy/sign-in", headers: [("Content-Type", FormBody.contentType)],
                body: Data("csrf=stub-csrf-1&password=secret".utf8)))
        #expect(redirect.status == 303)
        let location = try #require(redirect.header("Location"))
        #expect(location.hasPrefix("https://app.example/cb?code=stub-code-1&state=s1"))
        #expect(redirect.header("Set-Cookie")?.contains("HttpOnly") == true)
        func token(_ verifier: String) -> Int {
            stub.respond(
                to: ContractRequest(
                    method: "POST", target: "/toy/token", headers: [("Content-Type", FormBody.contentType)],
                    body: Data("grant_type=authorization_code&code=stub-code-1&code_verifier=\(verifier)".utf8))
            ).status
        }
        #expect(token("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") == 501)
        #expect(token("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") == 200)
    }

    @Test func withoutFollowingTheRedirectIsTheAnswer() async throws {
        let unfollowed = ToyProvider.browserContract.replacingOccurrences(of: "      follow_redirects: true\n", with: "")
        let report = try await verifiedOnTheToy(try loadContract(unfollowed))
        #expect(Self.mismatches(report.results[3].live).contains("status: expected 200, got 303"))
    }

    static func mismatches(_ check: CheckResult?) -> [String] {
        if case .failed(let found)? = check { found.map(\.description) } else { [] }
    }
}
