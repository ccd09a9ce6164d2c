import AuthCore
import AuthServer
import ContractTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// The pages an emailed link opens, through the router: the link's token moved into the
/// sealed browser session, the form's anti-forgery checks, the headers of every page, and
/// the account changed only by the form's POST. (`BrowserPageTests` drives the same pages
/// in Chromium.)
@Suite struct AccountPagesTests {
    static let publicURL = "https://auth.example.com"
    static let cookieName = "__Host-authd_browser"

    /// The reset fixture of ``PasswordResetTests`` with a public URL, so messages carry links.
    static func withPages(_ body: @Sendable (TestMailbox, ServerFixture) async throws -> Void) async throws {
        let mailbox = TestMailbox()
        try await EphemeralServer.withRunning(mailbox.router()) { base in
            var fixture = try await PasswordResetTests.fixture(deliveringTo: base)
            fixture.configuration.publicURL = publicURL
            try await body(mailbox, fixture)
        }
    }

    @Test func aResetLinkOpensAFormWhoseNewPasswordLogsIn() async throws {
        try await Self.withPages { mailbox, fixture in
            try await fixture.addUser("alice", password: PasswordResetTests.password)
            try await fixture.test { client async throws in
                #expect(try await client.postJSON("/password/reset", #"{"username":"alice"}"#).status == .accepted)
                let message = try await mailbox.next(within: .seconds(60))
                let token = try #require(message.json["token"] as? String)
                let link = try #require(message.json["link"] as? String)
                #expect(link == "\(Self.publicURL)/account/password-reset?token=\(token)")

                // The link: the token goes into the sealed session, and the page comes without it.
                let opened = try await client.execute(uri: "/account/password-reset?token=\(token)", method: .get)
                #expect(opened.status == .seeOther)
                #expect(opened.headers[.location] == "/account/password-reset")
                let setCookie = try #require(opened.headers[.setCookie])
                for attribute in ["HttpOnly", "Secure", "SameSite=Lax", "Path=/"] {
                    #expect(setCookie.contains(attribute), "Set-Cookie: \(attribute)")
                }
                #expect(!setCookie.contains(token))
                let cookie = try Self.cookie(from: opened)

                let page = try await client.execute(uri: "/account/password-reset", method: .get, headers: [.cookie: cookie])
                #expect(page.status == .ok)
                let html = String(buffer: page.body)
                #expect(html.contains(#"<html lang="en">"#))
                #expect(html.contains(#"autocomplete="new-password""#))
                #expect(html.contains(#"value="alice" autocomplete="username""#))
                #expect(!html.contains(token))
                Self.expectPageHeaders(page, html: html)
                let csrf = try Self.csrfToken(in: html)

                // Forged or cross-site forms act on nothing.
                for (headers, form) in [
                    (Self.formHeaders(cookie: cookie), "password=\(Self.encoded(PasswordResetTests.newPassword))"),
                    (Self.formHeaders(cookie: cookie), "csrf=\(Self.encoded(String(csrf.reversed())))&password=x"),
                    (
                        Self.formHeaders(cookie: cookie, origin: "https://evil.example"),
                        "csrf=\(csrf)&password=\(Self.encoded(PasswordResetTests.newPassword))"
                    ),
                    (
                        Self.formHeaders(cookie: cookie, site: "cross-site"),
                        "csrf=\(csrf)&password=\(Self.encoded(PasswordResetTests.newPassword))"
                    ),
                    (Self.formHeaders(cookie: nil), "csrf=\(csrf)&password=\(Self.encoded(PasswordResetTests.newPassword))"),
                ] {
                    let refused = try await client.execute(
                        uri: "/account/password-reset", method: .post, headers: headers, body: ByteBuffer(string: form))
                    #expect(refused.status == .forbidden)
                }
                // A weak password: the form again, saying why; the token still works.
                let weak = try await client.execute(
                    uri: "/account/password-reset", method: .post, headers: Self.formHeaders(cookie: cookie),
                    body: ByteBuffer(string: "csrf=\(csrf)&password=password")
                )
                #expect(weak.status == .unprocessableContent)
                #expect(String(buffer: weak.body).contains(#"role="alert""#))
                #expect(try await client.login("alice", PasswordResetTests.password).status == .ok)

                let set = try await client.execute(
                    uri: "/account/password-reset", method: .post, headers: Self.formHeaders(cookie: cookie),
                    body: ByteBuffer(string: "csrf=\(csrf)&username=alice&password=\(Self.encoded(PasswordResetTests.newPassword))")
                )
                #expect(set.status == .seeOther)
                #expect(set.headers[.location] == "/account/password-reset")
                let done = try await client.execute(
                    uri: "/account/password-reset", method: .get, headers: [.cookie: try Self.cookie(from: set)])
                #expect(done.status == .ok)
                #expect(String(buffer: done.body).contains("Your password was changed"))
                #expect(try await client.login("alice", PasswordResetTests.newPassword).status == .ok)
                #expect(try await client.login("alice", PasswordResetTests.password).status == .unauthorized)

                // The link again: used up.
                let reopened = try await client.execute(uri: "/account/password-reset?token=\(token)", method: .get)
                let gone = try await client.execute(
                    uri: "/account/password-reset", method: .get, headers: [.cookie: try Self.cookie(from: reopened)])
                #expect(gone.status == .gone)
                #expect(String(buffer: gone.body).contains("This link no longer works"))
            }
        }
    }

    @Test func aVerificationLinkConfirmsTheAddressOnlyWhenItsFormIsSent() async throws {
        try await Self.withPages { mailbox, fixture in
            try await fixture.test { client async throws in
                let created = try await client.postJSON(
                    "/users",
                    PasswordResetTests.json(["username": "bob", "password": PasswordResetTests.password, "email": "bob@example.com"])
                )
                #expect(created.status == .created)
                let message = try await mailbox.next(within: .seconds(60))
                let token = try #require(message.json["token"] as? String)
                #expect(message.json["link"] as? String == "\(Self.publicURL)/account/verify-email?token=\(token)")

                let opened = try await client.execute(uri: "/account/verify-email?token=\(token)", method: .get)
                let cookie = try Self.cookie(from: opened)
                let page = try await client.execute(uri: "/account/verify-email", method: .get, headers: [.cookie: cookie])
                #expect(page.status == .ok)
                let html = String(buffer: page.body)
                #expect(html.contains("Confirm your email address"))
                // Opening the link (as a mail scanner does) confirmed nothing.
                #expect(try await Self.verifiedAddresses(fixture) == 0)

                let confirmed = try await client.execute(
                    uri: "/account/verify-email", method: .post, headers: Self.formHeaders(cookie: cookie),
                    body: ByteBuffer(string: "csrf=\(try Self.csrfToken(in: html))")
                )
                #expect(confirmed.status == .seeOther)
                let done = try await client.execute(
                    uri: "/account/verify-email", method: .get, headers: [.cookie: try Self.cookie(from: confirmed)])
                #expect(String(buffer: done.body).contains("Your address is confirmed"))
                #expect(try await Self.verifiedAddresses(fixture) == 1)
            }
        }
    }

    @Test func pagesSpeakTheBrowsersLanguage() async throws {
        try await Self.withPages { mailbox, fixture in
            try await fixture.addUser("carol", password: PasswordResetTests.password)
            try await fixture.test { client async throws in
                _ = try await client.postJSON("/password/reset", #"{"username":"carol"}"#)
                let token = try #require(try await mailbox.next(within: .seconds(60)).json["token"] as? String)
                let opened = try await client.execute(uri: "/account/password-reset?token=\(token)", method: .get)
                let cookie = try Self.cookie(from: opened)
                for (accept, lang, title) in [
                    ("ja-JP,ja;q=0.9,en;q=0.8", "ja", "新しいパスワードの設定"), ("fr, en;q=0.5", "en", "Choose a new password"),
                    ("en;q=0.2, ja;q=0.7", "ja", "新しいパスワードの設定"), ("ja;q=0", "en", "Choose a new password"),
                ] {
                    let page = try await client.execute(
                        uri: "/account/password-reset", method: .get, headers: [.cookie: cookie, .acceptLanguage: accept])
                    let html = String(buffer: page.body)
                    #expect(html.contains(#"<html lang="\#(lang)">"#), "\(accept)")
                    #expect(html.contains(title), "\(accept)")
                }
            }
        }
    }

    @Test func withoutAPublicURLMessagesCarryNoLink() async throws {
        try await PasswordResetTests.withMailbox { mailbox, fixture in
            try await fixture.addUser("dave", password: PasswordResetTests.password)
            try await fixture.test { client async throws in
                _ = try await client.postJSON("/password/reset", #"{"username":"dave"}"#)
                let message = try await mailbox.next(within: .seconds(60))
                #expect(message.json["token"] is String)
                #expect(message.json.keys.contains("link"))
                #expect(message.json["link"] is NSNull)
            }
        }
    }

    // MARK: - Helpers

    /// Every page's headers: a CSP whose nonce is the page's style's, no framing, no referrer.
    static func expectPageHeaders(_ page: TestResponse, html: String) {
        let policy = page.headers[.contentSecurityPolicy] ?? ""
        #expect(policy.contains("default-src 'none'"))
        #expect(policy.contains("frame-ancestors 'none'"))
        #expect(policy.contains("form-action 'self'"))
        let nonce = policy.split(separator: "'").first { $0.hasPrefix("nonce-") }.map { String($0.dropFirst(6)) }
        #expect(nonce.map { html.contains(#"<style nonce="\#($0)">"#) } == true)
        #expect(page.headers[HTTPField.Name("Referrer-Policy")!] == "same-origin")
        #expect(page.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
        #expect(page.headers[.cacheControl] == "no-store")
        #expect(page.headers[.contentType] == "text/html; charset=utf-8")
    }

    /// `name=value` of the browser-session cookie a response set.
    static func cookie(from response: TestResponse) throws -> String {
        let setCookie = try #require(response.headers[.setCookie])
        let pair = try #require(setCookie.split(separator: ";").first)
        #expect(pair.hasPrefix("\(cookieName)="))
        return String(pair)
    }

    static func csrfToken(in html: String) throws -> String {
        let marker = #"name="csrf" value=""#
        let start = try #require(html.range(of: marker)).upperBound
        return String(html[start...].prefix { $0 != "\"" })
    }

    static func formHeaders(cookie: String?, origin: String = publicURL, site: String = "same-origin") -> HTTPFields {
        var headers: HTTPFields = [
            .contentType: "application/x-www-form-urlencoded", .origin: origin, HTTPField.Name("Sec-Fetch-Site")!: site,
        ]
        if let cookie { headers[.cookie] = cookie }
        return headers
    }

    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    static func verifiedAddresses(_ fixture: ServerFixture) async throws -> Int {
        try await PasswordResetTests.count(
            "SELECT count(*)::int8 FROM users WHERE email = 'bob@example.com' AND email_verified_at IS NOT NULL", in: fixture)
    }
}
