import ContractStub
import ContractStubServer
import Foundation
import LoginClient
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// authd's contracts, which CI proves authd keeps.
let authdContracts = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("contracts").path

/// Through URLProtocol: no sockets at all.
@Suite struct LoginAPIURLProtocolTests {
    let stub: ContractStub
    let api: LoginAPI

    init() throws {
        stub = try ContractStub(directory: authdContracts)
        // Any host: the stub's session never leaves the process.
        api = LoginAPI(baseURL: try #require(URL(string: "https://auth.example")), session: stub.urlSession)
    }

    @Test func logsIn() async throws {
        let session = try await api.login(username: "alice", password: "correct horse battery staple")
        #expect(session.expiresIn == 900)
        #expect(session.accessToken.split(separator: ".").count == 3)
        #expect(stub.unmatched.isEmpty)
        #expect(stub.requests.first?.target == "/login")
    }

    @Test func reportsAWrongPassword() async throws {
        await #expect(throws: LoginError.invalidCredentials) {
            try await api.login(username: "alice", password: "wrong password")
        }
    }

    /// Sign in with Apple's (or Google's) ID token, posted as the app got it. The stub checks
    /// its claims (authd also checks its signature against the provider's keys, which CI
    /// proves live with a provider of its own).
    @Test func signsInWithAProvidersIDToken() async throws {
        let rawNonce = "the app's raw nonce"
        // {"aud":"com.example.notes","nonce":SHA-256(rawNonce) in hex,"sub":"3f2c8e4a-…"}: what the provider signed.
        let identityToken =
            "eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9.eyJhdWQiOiJjb20uZXhhbXBsZS5ub3RlcyIsIm5vbmNlIjoiMWNhNWIxNmZhMjRhMjJmODgzZDFhNWJlOWFmYTlkNzIzZGYyYjVmMzA4ZmQzNjQyMTlhNmQ2Yzc4Y2IxM2NmNiIsInN1YiI6IjNmMmM4ZTRhLTZiMWQtNGE3Ni05YzJlLThkNWYwYTFiMmMzZCJ9.c2lnbmF0dXJl"
        let session = try await api.signIn(provider: "contract-idp", idToken: identityToken, nonce: rawNonce)
        #expect(session.accessToken.split(separator: ".").count == 3)
        #expect(stub.requests.last?.target == "/login/id-token")
        do {
            _ = try await api.signIn(provider: "no-such-provider", idToken: identityToken, nonce: rawNonce)
            Issue.record("an unknown provider signed in")
        } catch LoginError.invalidRequest(let why) {
            #expect(!why.isEmpty)
        }
    }

    @Test func reportsADisabledAccount() async throws {
        await #expect(throws: LoginError.accountDisabled) {
            try await api.login(username: "bob", password: "correct horse battery staple")
        }
    }

    @Test func signsUpAndIsToldWhenTheNameIsTaken() async throws {
        let account = try await api.signUp(username: "Nina", password: "correct horse battery staple")
        #expect(account.username == "Nina")
        #expect(UUID(uuidString: account.id) != nil)
        await #expect(throws: LoginError.usernameTaken) {
            try await api.signUp(username: "NINA", password: "another fine passphrase")
        }
        do {
            _ = try await api.signUp(username: "nina-two", password: "qwertyuiop")
            Issue.record("a common password was accepted")
        } catch LoginError.weakPassword(let why) {
            #expect(!why.isEmpty, "the server says why")
        }
    }

    /// The whole reset flow against the stub: the stub delivers what authd would deliver to
    /// the app's mailer (the sign-up's verification, the reset's token), the test takes the
    /// token from `stub.deliveries` as the mailer would, and the stub accepts only that token.
    @Test func signsUpVerifiesTheAddressAndResetsThePasswordWithTheDeliveredToken() async throws {
        let account = try await api.signUp(username: "pat", password: "correct horse battery staple", email: "pat@example.com")
        let verification = try #require(await stub.deliveries.first { $0.json?["kind"] == "email_verification" })
        guard case .string(let verificationToken)? = verification.json?["token"] else { throw LoginError.malformedResponse }
        #expect(verification.json?["user_id"] == .string(account.id))
        try await api.verifyEmail(token: verificationToken)
        await #expect(throws: LoginError.invalidToken) { try await api.verifyEmail(token: verificationToken) }

        _ = try await api.login(username: "pat", password: "correct horse battery staple")
        try await api.requestPasswordReset(email: "pat@example.com")
        let mail = try #require(await stub.deliveries.first { $0.json?["kind"] == "password_reset" })
        #expect(mail.path == "/deliveries")
        #expect(mail.header("Authd-Signature")?.hasPrefix("t=") == true)
        guard case .string(let token)? = mail.json?["token"] else { throw LoginError.malformedResponse }

        do {
            try await api.resetPassword(token: token, newPassword: "qwertyuiop")
            Issue.record("a common password was accepted")
        } catch LoginError.weakPassword {}
        try await api.resetPassword(token: token, newPassword: "a whole new passphrase")
        await #expect(throws: LoginError.invalidToken) { try await api.resetPassword(token: token, newPassword: "yet another passphrase") }
        await #expect(throws: LoginError.invalidCredentials) {
            try await api.login(username: "pat", password: "correct horse battery staple")
        }
        _ = try await api.login(username: "pat", password: "a whole new passphrase")
        #expect(stub.unmatched.isEmpty)
    }

    /// An authenticator app against the stub: the test plays the app with the stub's TOTP
    /// (RFC 6238) on the secret the stub answered, as a phone would on authd's. The code
    /// that confirmed the app is used, so the login waits for the next one; a recovery code
    /// finishes the next login.
    @Test func turnsOnAnAuthenticatorAppAndLogsInWithItsCodeThenARecoveryCode() async throws {
        let first = try await api.login(username: "mia", password: "correct horse battery staple")
        let enrolment = try await api.enrolAuthenticatorApp(accessToken: first.accessToken)
        #expect(enrolment.uri.hasPrefix("otpauth://totp/authd:mia?secret="))
        let app = try TOTP(secret: enrolment.secret)
        let recoveryCodes = try await api.confirmAuthenticatorApp(accessToken: first.accessToken, code: app.code(at: Date()))
        #expect(recoveryCodes.count == 10)

        func secondStep() async throws -> String {
            do {
                _ = try await api.login(username: "mia", password: "correct horse battery staple")
            } catch LoginError.secondFactorRequired(let mfaToken) {
                return mfaToken
            }
            throw LoginError.malformedResponse
        }
        let token = try await secondStep()
        let session = try await api.completeLogin(mfaToken: token, code: app.code(at: Date().addingTimeInterval(30)))
        #expect(session.accessToken.split(separator: ".").count == 3)
        _ = try await api.completeLogin(mfaToken: try await secondStep(), recoveryCode: recoveryCodes[0])
        #expect(stub.unmatched.isEmpty)
    }

    /// A token the stub did not deliver is refused, as authd refuses it.
    @Test func aTokenTheStubDidNotDeliverIsNotAccepted() async throws {
        _ = try await api.signUp(username: "pat", password: "correct horse battery staple", email: "pat@example.com")
        try await api.requestPasswordReset(email: "pat@example.com")
        #expect(stub.delivered.count == 2)
        await #expect(throws: (any Error).self) {
            try await api.resetPassword(token: String(repeating: "x", count: 43), newPassword: "a whole new passphrase")
        }
    }

    /// The phone and the laptop each log in with their own User-Agent; the phone lists
    /// both sessions and knows which is its own.
    @Test func listsTheSessionsWithTheCurrentOneMarked() async throws {
        let base = try #require(URL(string: "https://auth.example"))
        let phone = LoginAPI(baseURL: base, session: stub.urlSession, userAgent: "Phone/1.0")
        let laptop = LoginAPI(baseURL: base, session: stub.urlSession, userAgent: "Laptop/2.0")
        let login = try await phone.login(username: "uma", password: "correct horse battery staple")
        _ = try await laptop.login(username: "uma", password: "correct horse battery staple")
        let sessions = try await phone.sessions(accessToken: login.accessToken)
        #expect(sessions.map(\.userAgent) == ["Laptop/2.0", "Phone/1.0"])
        #expect(sessions.map(\.isCurrent) == [false, true])
        #expect(stub.unmatched.isEmpty)
    }

    @Test func aRequestNoContractCoversIsAFailureTheTestCanSee() async throws {
        await #expect(throws: LoginError.unexpectedStatus(501)) {
            try await api.login(username: "carol", password: "never written in a contract")
        }
        #expect(stub.unmatched.count == 1)
    }

    @Test func copesWithAMalformedServerAnswer() async throws {
        let fixtures = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        let malformed = try ContractStub(directory: fixtures.appendingPathComponent("malformed").path)
        malformed.usageClient = nil  // a fixture, not authd's contracts: not in the usage file
        let api = LoginAPI(baseURL: try #require(URL(string: "https://auth.example")), session: malformed.urlSession)
        await #expect(throws: LoginError.malformedResponse) {
            try await api.login(username: "alice", password: "correct horse battery staple")
        }
    }
}

/// Through a local HTTP server on an ephemeral port, for clients that do not use URLSession
/// (here the same client, to show both ways).
@Suite struct LoginAPILocalServerTests {
    @Test func logsInAndFailsLikeAuthd() async throws {
        let stub = try ContractStub(directory: authdContracts)
        try await ContractStubServer.withRunning(stub) { url in
            let api = LoginAPI(baseURL: url)
            let session = try await api.login(username: "alice", password: "correct horse battery staple")
            #expect(session.refreshToken.count == 43)
            await #expect(throws: LoginError.invalidCredentials) {
                try await api.login(username: "alice", password: "wrong password")
            }
        }
        #expect(stub.requests.count == 2)
    }

    @Test func copesWithAMalformedServerAnswer() async throws {
        let fixtures = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        let stub = try ContractStub(directory: fixtures.appendingPathComponent("malformed").path)
        stub.usageClient = nil
        try await ContractStubServer.withRunning(stub) { url in
            await #expect(throws: LoginError.malformedResponse) {
                try await LoginAPI(baseURL: url).login(username: "alice", password: "correct horse battery staple")
            }
        }
    }
}
