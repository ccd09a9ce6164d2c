import AuthTestSupport
import ContractRunner
import ContractTestSupport
import Foundation
import PostgresNIO
import ProcessKit
import Testing

/// authd's pages in a real browser: Debian's Chromium, driven by Selenium from PyPI
/// (`Browser/account_pages.py`), against `authd serve --public-url`, opening the link the
/// delivered message carries. Screenshots of each step are kept in `.build-test/screenshots`.
@Suite(.serialized) struct BrowserPageTests {
    static let password = "correct horse battery staple"
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let script = root.appendingPathComponent("Tests/authdTests/Browser/account_pages.py").path
    static let shots = root.appendingPathComponent(".build-test/screenshots")

    /// The reset link opens authd's page; a weak password is refused there, and the new
    /// password set there logs in while the old one no longer does.
    @Test func aResetLinkOpensAuthdsPageAndTheNewPasswordLogsIn() async throws {
        try await Self.withAuthd { base, mailbox, database in
            #expect(
                try await AuthdBinary.run(
                    ["user", "add", "lee", "--password-stdin", "--database-url", database.url] + Self.light, input: Self.password
                ).status == 0)
            #expect(try await AuthdBinary.post(base, "password/reset", ["username": "lee"]).0 == 202)
            let link = try #require(try await mailbox.next(within: .seconds(60)).json["link"] as? String)
            #expect(link.hasPrefix("\(base.absoluteString.trimmingSuffix("/"))/account/password-reset?token="))

            let seen = try await Self.browse(["reset", link, "a new passphrase, typed in Chromium"], language: "en")
            #expect(seen["url_after_link"] as? String == "\(base.absoluteString.trimmingSuffix("/"))/account/password-reset")
            #expect(seen["lang"] as? String == "en")
            #expect(seen["autocomplete"] as? String == "new-password")
            #expect(seen["headings"] as? [String] == ["Choose a new password", "Choose a new password", "Your password was changed"])
            #expect((seen["error"] as? String)?.contains("10,000 most common") == true)
            // Nothing in the console but the weak password's 422 (a CSP violation would be there).
            let console = (seen["console"] as? [String] ?? ["no console"]).filter { !$0.contains("status of 422") }
            #expect(console == [], "the page broke its own Content Security Policy, or failed otherwise")

            #expect(try await AuthdBinary.login(base, "lee", "a new passphrase, typed in Chromium").0 == 200)
            #expect(try await AuthdBinary.login(base, "lee", Self.password).0 == 401)
        }
    }

    /// A browser that prefers Japanese gets the verification page in Japanese, and its
    /// button confirms the address.
    @Test func aVerificationLinkConfirmsTheAddressInJapanese() async throws {
        try await Self.withAuthd { base, mailbox, database in
            let (created, _) = try await AuthdBinary.post(
                base, "users", ["username": "mei", "password": Self.password, "email": "mei@example.com"])
            #expect(created == 201)
            let link = try #require(try await mailbox.next(within: .seconds(60)).json["link"] as? String)
            let seen = try await Self.browse(["verify", link], language: "ja")
            #expect(seen["lang"] as? String == "ja")
            #expect(seen["headings"] as? [String] == ["メールアドレスの確認", "アドレスを確認しました"])
            #expect(seen["console"] as? [String] == [])
            let verified = try await TestCluster.withDatabase(database.configuration) { database async throws in
                for try await count in try await database.client.query(
                    "SELECT count(*)::int8 FROM users WHERE email_verified_at IS NOT NULL"
                ).decode(Int.self) {
                    return count
                }
                return 0
            }
            #expect(verified == 1)
        }
    }

    static let light = ["--argon2-memory", "1024", "--argon2-iterations", "1"]

    /// authd on a fresh database at a port fixed beforehand, whose public URL is its own
    /// address, delivering to a receiver.
    static func withAuthd(_ body: @Sendable (URL, TestMailbox, TestCluster.TestDatabase) async throws -> Void) async throws {
        let database = try await TestCluster.newMigratedDatabase()
        let mailbox = TestMailbox()
        try await EphemeralServer.withRunning(mailbox.router()) { receiver in
            let port = try ProviderProcess.freePort()
            let url = ["--database-url", database.url]
            let serve =
                url + light + [
                    "--port", String(port), "--public-url", "http://127.0.0.1:\(port)", "--signup", "open", "--delivery-url",
                    "\(receiver)/deliveries",
                ]
            let environment = AuthdBinary.environment(["AUTHD_DELIVERY_SECRET": "a shared secret of the mailer"])
            _ = try await AuthdBinary.withServer(serve, environment: environment) { base in
                try await body(base, mailbox, database)
            }
        }
    }

    /// Runs the Selenium script with `arguments`; what it saw.
    static func browse(_ arguments: [String], language: String) async throws -> [String: Any] {
        let python = try #require(PythonTools.python(importing: "selenium", from: "selenium"), "selenium could not be installed from PyPI")
        try FileManager.default.createDirectory(at: shots, withIntermediateDirectories: true)
        let result = try await CommandRunner.run(python, [script] + arguments + ["--language", language, "--shots", shots.path])
        #expect(result.status == 0, "\(result.output)")
        let line = try #require(result.output.split(separator: "\n").last.map(String.init))
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
}

extension String {
    /// The text without `suffix` at its end (a base URL's `/`).
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
