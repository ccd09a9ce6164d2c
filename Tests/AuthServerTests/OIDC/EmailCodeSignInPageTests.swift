import AuthCore
import AuthServer
import AuthTestSupport
import ContractTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// "Email me a sign-in code" on the hosted sign-in page: the address, the code from the
/// message, the request going on signed in (`otp`); a wrong code said so on the page; and
/// the emailed code as the proof of an account a provider's identity waits to be linked to.
@Suite struct EmailCodeSignInPageTests {
    typealias Browser = BrowserProviderSignInTests.Browser

    /// Delivering to a mailbox, with `phone-app`, alice (her address `river@example.com`,
    /// verified) and the test provider `upstream`.
    static func withFixture(_ body: @Sendable (TestMailbox, ServerFixture, TestIdentityProvider, String) async throws -> Void)
        async throws
    {
        let upstream = TestIdentityProvider()
        try await upstream.withRunning { issuer in
            try await AccountPagesTests.withPages { mailbox, pages in
                let fixture = try await AuthorizationCodeFlowTests.registered(pages)
                try await BrowserProviderSignInTests.giveAliceTheProvidersAddress(fixture)
                try await fixture.addProvider("upstream", issuer: issuer)
                try await body(mailbox, fixture, upstream, issuer)
            }
        }
    }

    /// From a sign-in page: the email-code page, the address sent; the page asking for the
    /// code, and the code from the message.
    static func askForCode(_ browser: inout Browser, _ client: some TestClientProtocol, _ mailbox: TestMailbox, signInPage html: String)
        async throws -> (page: String, code: String)
    {
        let link = try #require(linkHref(in: html))
        let form = try await browser.get(client, link.replacingOccurrences(of: "&amp;", with: "&"))
        #expect(form.status == .ok)
        let formHTML = String(buffer: form.body)
        #expect(formHTML.contains(#"autocomplete="email""#))
        let action = try #require(AuthorizationCodeFlowTests.attribute("action", in: formHTML)).replacingOccurrences(of: "&amp;", with: "&")
        let sent = try await browser.post(
            client, action, [("email", "river@example.com"), ("csrf", try AccountPagesTests.csrfToken(in: formHTML))])
        #expect(sent.status == .ok)
        var message: TestMailbox.Message
        repeat { message = try await mailbox.next(within: .seconds(60)) } while message.json["kind"] as? String != "email_sign_in"
        return (String(buffer: sent.body), try #require(message.json["code"] as? String))
    }

    static func linkHref(in html: String) -> String? {
        guard let at = html.range(of: #"id="email-code""#) else { return nil }
        let before = html[..<at.lowerBound]
        guard let start = before.range(of: #"href=""#, options: .backwards)?.upperBound else { return nil }
        return String(html[start...].prefix { $0 != "\"" })
    }

    /// Posts the code form of `page` with `code`.
    static func submit(_ browser: inout Browser, _ client: some TestClientProtocol, page: String, code: String) async throws -> TestResponse
    {
        let action = try #require(AuthorizationCodeFlowTests.attribute("action", in: page)).replacingOccurrences(of: "&amp;", with: "&")
        return try await browser.post(
            client, action,
            [("email", "river@example.com"), ("code", code), ("csrf", try AccountPagesTests.csrfToken(in: page))])
    }

    @Test func anEmailedCodeSignsInFromTheSignInPage() async throws {
        try await Self.withFixture { mailbox, fixture, _, _ in
            try await fixture.test { client async throws in
                var browser = Browser()
                let html = try await BrowserProviderSignInTests.signInPage(&browser, client)
                let (page, code) = try await Self.askForCode(&browser, client, mailbox, signInPage: html)
                #expect(page.contains(#"id="notice""#) && page.contains(#"autocomplete="one-time-code""#))
                let wrong = try await Self.submit(&browser, client, page: page, code: code == "000000" ? "111111" : "000000")
                #expect(wrong.status == .unauthorized)
                #expect(String(buffer: wrong.body).contains(#"id="error""#))
                let signedIn = try await Self.submit(&browser, client, page: String(buffer: wrong.body), code: code)
                #expect(signedIn.status == .seeOther)
                #expect(try #require(signedIn.headers[.location]).hasPrefix(AuthorizationCodeFlowTests.native))
                #expect(try await fixture.auditDetails(of: "login_succeeded") == ["email_code"])
            }
        }
    }

    @Test func anEmailedCodeProvesTheAccountAProvidersIdentityIsLinkedTo() async throws {
        try await Self.withFixture { mailbox, fixture, upstream, issuer in
            try await fixture.test { client async throws in
                var browser = Browser()
                let request = try await BrowserProviderSignInTests.startAtProvider(&browser, client, provider: "upstream")
                let code = upstream.issueCode(for: BrowserProviderSignInTests.token(upstream, issuer: issuer, request: request))
                let back = try await browser.get(client, "/federation/callback?code=\(code)&state=\(try #require(request["state"]))")
                let html = String(buffer: back.body)
                #expect(back.status == .ok && html.contains(#"id="notice""#))
                let (page, emailed) = try await Self.askForCode(&browser, client, mailbox, signInPage: html)
                let offered = try await Self.submit(&browser, client, page: page, code: emailed)
                #expect(offered.status == .ok)
                let linkPage = String(buffer: offered.body)
                #expect(linkPage.contains("Link upstream to your account?"))
                let linked = try await browser.post(
                    client,
                    try #require(AuthorizationCodeFlowTests.attribute("action", in: linkPage)).replacingOccurrences(of: "&amp;", with: "&"),
                    [("decision", "link"), ("csrf", try AccountPagesTests.csrfToken(in: linkPage))])
                #expect(linked.status == .seeOther)
                #expect(try await fixture.identityCount() == 1)
                #expect(try await fixture.auditDetails(of: "identity_linked") == ["upstream:confirmed"])
            }
        }
    }
}
