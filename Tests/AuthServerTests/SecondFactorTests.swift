import AuthCore
import AuthPostgres
import AuthServer
import AuthTestSupport
import ContractKit
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// TOTP and recovery codes over HTTP, on PostgreSQL, under a clock the tests move: the
/// codes are computed here independently of authd (ContractKit's RFC 6238, the one the
/// contracts' stub checks), from the base32 key authd answers.
@Suite struct SecondFactorTests {
    static let password = "correct horse battery staple"

    /// A fixture whose clock starts 5 s into a time step.
    static func fixture() async throws -> (ServerFixture, TestClock) {
        var fixture = try await ServerFixture()
        let clock = TestClock(now: Date(timeIntervalSince1970: 1_700_000_015))
        fixture.configuration.clock = clock
        return (fixture, clock)
    }

    /// Enrols and confirms an authenticator app for `username`; returns its key and recovery codes.
    static func turnOn(_ client: some TestClientProtocol, _ username: String, clock: TestClock) async throws -> (
        key: TOTP, recoveryCodes: [String]
    ) {
        let access = try #require(try await client.login(username, password).json()["access_token"] as? String)
        let enrolled = try await client.sendJSON(.post, "/mfa/totp", [:], bearer: access)
        #expect(enrolled.status == .ok)
        let secret = try #require(try enrolled.json()["secret"] as? String)
        let key = try TOTP(secret: secret)
        let confirmed = try await client.sendJSON(.post, "/mfa/totp/confirm", ["code": key.code(at: clock.now)], bearer: access)
        #expect(confirmed.status == .ok)
        return (key, try #require(try confirmed.json()["recovery_codes"] as? [String]))
    }

    /// The second step's token from a login that asks for it.
    static func mfaToken(_ client: some TestClientProtocol, _ username: String) async throws -> String {
        let first = try await client.login(username, password)
        #expect(first.status == .unauthorized)
        #expect(try first.error().code == "mfa_required")
        return try #require(try first.json()["mfa_token"] as? String)
    }

    @Test func anAppIsEnrolledConfirmedAndThenAskedForAtEveryLogin() async throws {
        let (fixture, clock) = try await Self.fixture()
        try await fixture.addUser("alice", password: Self.password)
        try await fixture.test { client async throws in
            let access = try #require(try await client.login("alice", Self.password).json()["access_token"] as? String)
            let enrolled = try await client.sendJSON(.post, "/mfa/totp", [:], bearer: access)
            #expect(enrolled.status == .ok)
            let body = try enrolled.json()
            let secret = try #require(body["secret"] as? String)
            #expect(secret.count == 37 && secret.allSatisfy { "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".contains($0) })
            #expect(body["otpauth_uri"] as? String == "otpauth://totp/authd:alice?secret=\(secret)&issuer=authd")
            #expect(enrolled.headers[.cacheControl] == "no-store")
            let key = try TOTP(secret: secret)

            // Until its first code confirms it, the app is not asked for.
            #expect(try await client.login("alice", Self.password).status == .ok)
            let wrong = try await client.sendJSON(
                .post, "/mfa/totp/confirm", ["code": Self.other(than: key.code(at: clock.now))], bearer: access)
            #expect(wrong.status == .unauthorized)
            #expect(try wrong.error().code == "invalid_credentials")
            let confirmed = try await client.sendJSON(.post, "/mfa/totp/confirm", ["code": key.code(at: clock.now)], bearer: access)
            #expect(confirmed.status == .ok)
            let codes = try #require(try confirmed.json()["recovery_codes"] as? [String])
            #expect(codes.count == 10 && Set(codes).count == 10)
            #expect(codes.allSatisfy { $0.wholeMatch(of: /[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}/) != nil })
            let again = try await client.sendJSON(.post, "/mfa/totp", [:], bearer: access)
            #expect(again.status == .conflict)
            #expect(try again.error().code == "totp_already_enabled")

            // The password alone now earns an mfa_token, not a session.
            let first = try await client.login("alice", Self.password)
            #expect(first.status == .unauthorized)
            let challenge = try first.json()
            #expect(challenge["error"] as? String == "mfa_required")
            #expect(challenge["access_token"] == nil)
            let mfaToken = try #require(challenge["mfa_token"] as? String)

            // The code that confirmed the app was used: it (and its step) is refused.
            let replayed = try await client.sendJSON(.post, "/login/mfa", ["mfa_token": mfaToken, "code": key.code(at: clock.now)])
            #expect(replayed.status == .unauthorized)
            #expect(try replayed.error().code == "invalid_credentials")
            clock.advance(by: 30)
            let done = try await client.sendJSON(.post, "/login/mfa", ["mfa_token": mfaToken, "code": key.code(at: clock.now)])
            #expect(done.status == .ok)
            let tokens = try done.json()
            #expect(try await client.me(try #require(tokens["access_token"] as? String)).status == .ok)
            #expect(tokens["refresh_token"] is String)
            // The token worked once.
            clock.advance(by: 30)
            let reused = try await client.sendJSON(.post, "/login/mfa", ["mfa_token": mfaToken, "code": key.code(at: clock.now)])
            #expect(reused.status == .unauthorized)
            #expect(try reused.error().code == "invalid_token")
        }
        let kinds = try await fixture.auditKinds()
        #expect(kinds.contains("totp_enabled"))
        #expect(kinds.filter { $0 == "second_factor_required" }.count == 1)
        #expect(try await fixture.auditDetails(of: "login_succeeded").last == "totp")
    }

    /// One step either side of authd's clock is accepted, two are not; a code of a step
    /// before one already accepted is refused.
    @Test func codesAreAcceptedOneStepEitherSideAndEachStepOnce() async throws {
        let (fixture, clock) = try await Self.fixture()
        try await fixture.addUser("bob", password: Self.password)
        try await fixture.test { client async throws in
            let (key, _) = try await Self.turnOn(client, "bob", clock: clock)
            clock.advance(by: 300)
            let token = try await Self.mfaToken(client, "bob")
            let late = try await client.sendJSON(
                .post, "/login/mfa", ["mfa_token": token, "code": key.code(at: clock.now.addingTimeInterval(-60))])
            #expect(late.status == .unauthorized)
            let early = try await client.sendJSON(
                .post, "/login/mfa", ["mfa_token": token, "code": key.code(at: clock.now.addingTimeInterval(60))])
            #expect(early.status == .unauthorized)
            let behind = try await client.sendJSON(
                .post, "/login/mfa", ["mfa_token": token, "code": key.code(at: clock.now.addingTimeInterval(-30))])
            #expect(behind.status == .ok)
            // The current step comes after the one accepted: it works, once.
            let now = try await client.sendJSON(
                .post, "/login/mfa", ["mfa_token": try await Self.mfaToken(client, "bob"), "code": key.code(at: clock.now)])
            #expect(now.status == .ok)
            let token2 = try await Self.mfaToken(client, "bob")
            let again = try await client.sendJSON(.post, "/login/mfa", ["mfa_token": token2, "code": key.code(at: clock.now)])
            #expect(again.status == .unauthorized)
            // So is the step before it, though within the window.
            let earlier = try await client.sendJSON(
                .post, "/login/mfa", ["mfa_token": token2, "code": key.code(at: clock.now.addingTimeInterval(-30))])
            #expect(earlier.status == .unauthorized)
            let ahead = try await client.sendJSON(
                .post, "/login/mfa", ["mfa_token": token2, "code": key.code(at: clock.now.addingTimeInterval(30))])
            #expect(ahead.status == .ok)
        }
        #expect(try await fixture.auditDetails(of: "login_failed") == ["wrong_code", "wrong_code", "replayed_code", "replayed_code"])
    }

    @Test func eachRecoveryCodeWorksOnceInAnyCaseAndWithoutHyphens() async throws {
        let (fixture, clock) = try await Self.fixture()
        try await fixture.addUser("carol", password: Self.password)
        try await fixture.test { client async throws in
            let (_, codes) = try await Self.turnOn(client, "carol", clock: clock)
            let first = try await client.sendJSON(
                .post, "/login/mfa", ["mfa_token": try await Self.mfaToken(client, "carol"), "recovery_code": codes[0]])
            #expect(first.status == .ok)
            let token = try await Self.mfaToken(client, "carol")
            let reused = try await client.sendJSON(.post, "/login/mfa", ["mfa_token": token, "recovery_code": codes[0]])
            #expect(reused.status == .unauthorized)
            #expect(try reused.error().code == "invalid_credentials")
            let made = try await client.sendJSON(.post, "/login/mfa", ["mfa_token": token, "recovery_code": "aaaa-bbbb-cccc-dddd"])
            #expect(made.status == .unauthorized)
            let typed = codes[1].uppercased().replacingOccurrences(of: "-", with: " ")
            #expect(try await client.sendJSON(.post, "/login/mfa", ["mfa_token": token, "recovery_code": typed]).status == .ok)
        }
        #expect(try await fixture.auditDetails(of: "login_succeeded").suffix(2) == ["recovery_code", "recovery_code"])
        #expect(try await fixture.auditDetails(of: "login_failed") == ["wrong_recovery_code", "wrong_recovery_code"])
        // Only digests are stored: 8 unused ones remain.
        let stored = try await fixture.withDatabase { database async throws in
            var rows: [(String, Bool)] = []
            for try await row in try await database.client.query("SELECT code_hash, used_at IS NULL FROM recovery_codes").decode(
                (String, Bool).self)
            {
                rows.append(row)
            }
            return rows
        }
        #expect(stored.count == 10 && stored.filter(\.1).count == 8)
        #expect(stored.allSatisfy { $0.0.wholeMatch(of: /[0-9a-f]{64}/) != nil })
    }

    /// The key is sealed at rest: the row holds neither the key nor its base32.
    @Test func theKeyIsSealedAtRest() async throws {
        let (fixture, clock) = try await Self.fixture()
        try await fixture.addUser("dave", password: Self.password)
        let key = try await fixture.test { client async throws in try await Self.turnOn(client, "dave", clock: clock).key }
        let sealed = try await fixture.withDatabase { database async throws in
            var rows: [Data] = []
            for try await bytes in try await database.client.query("SELECT sealed_secret FROM totp_factors").decode(ByteBuffer.self) {
                rows.append(Data(buffer: bytes))
            }
            return rows
        }
        let row = try #require(sealed.first)
        #expect(sealed.count == 1)
        let sealedLength = 23 + 12 + 16
        #expect(row.count == sealedLength)
        #expect(row.range(of: Data(key.key)) == nil)
        let base32 = Data(Base32.encode(key.key).utf8)
        #expect(row.range(of: base32) == nil)
    }

    /// An mfa_token lives 5 minutes, survives 5 wrong codes, and dies with a password change.
    @Test func theSecondStepsTokenExpiresWearsOutAndIsBoundToThePassword() async throws {
        let (fixture, clock) = try await Self.fixture()
        try await fixture.addUser("erin", password: Self.password)
        try await fixture.test { client async throws in
            let (key, _) = try await Self.turnOn(client, "erin", clock: clock)
            clock.advance(by: 60)
            let expiring = try await Self.mfaToken(client, "erin")
            clock.advance(by: 301)
            let expired = try await client.sendJSON(.post, "/login/mfa", ["mfa_token": expiring, "code": key.code(at: clock.now)])
            #expect(try expired.error().code == "invalid_token")

            let worn = try await Self.mfaToken(client, "erin")
            for _ in 0..<5 {
                let wrong = try await client.sendJSON(
                    .post, "/login/mfa", ["mfa_token": worn, "code": Self.other(than: key.code(at: clock.now))])
                #expect(try wrong.error().code == "invalid_credentials")
            }
            let late = try await client.sendJSON(.post, "/login/mfa", ["mfa_token": worn, "code": key.code(at: clock.now)])
            #expect(try late.error().code == "invalid_token")

            let bound = try await Self.mfaToken(client, "erin")
            _ = try await fixture.withDatabase { database async throws in
                try await database.client.query("UPDATE users SET password_hash = 'x' WHERE username = 'erin'")
            }
            let changed = try await client.sendJSON(.post, "/login/mfa", ["mfa_token": bound, "code": key.code(at: clock.now)])
            #expect(try changed.error().code == "invalid_token")
            let made = try await client.sendJSON(.post, "/login/mfa", ["mfa_token": "not-a-token", "code": key.code(at: clock.now)])
            #expect(made.status == .unauthorized)
            #expect(try made.error().code == "invalid_token")
        }
    }

    /// Turning an authenticator app on needs a recent login (RFC 9470): with a token whose
    /// login is over 5 minutes old, enrolment and its confirmation are 401
    /// `insufficient_user_authentication`.
    @Test func enrollingAnAppNeedsARecentLogin() async throws {
        let (fixture, clock) = try await Self.fixture()
        try await fixture.addUser("hugo", password: Self.password)
        try await fixture.test { client async throws in
            let stale = try #require(try await client.login("hugo", Self.password).json()["access_token"] as? String)
            let fresh = try #require(try await client.login("hugo", Self.password).json()["access_token"] as? String)
            let enrolled = try await client.sendJSON(.post, "/mfa/totp", [:], bearer: fresh)
            let key = try TOTP(secret: try #require(try enrolled.json()["secret"] as? String))
            clock.advance(by: 301)
            for (path, body) in [("/mfa/totp", [String: String]()), ("/mfa/totp/confirm", ["code": key.code(at: clock.now)])] {
                let refused = try await client.sendJSON(.post, path, body, bearer: stale)
                #expect(refused.status == .unauthorized)
                #expect(try refused.error().code == "insufficient_user_authentication")
                #expect(refused.headers[.wwwAuthenticate]?.contains("max_age=300") == true)
            }
            let again = try #require(try await client.login("hugo", Self.password).json()["access_token"] as? String)
            #expect(try await client.sendJSON(.post, "/mfa/totp/confirm", ["code": key.code(at: clock.now)], bearer: again).status == .ok)
        }
    }

    /// Ten wrong codes sent at once on one `mfa_token`: only its five attempts are checked,
    /// the rest find the token worn out.
    @Test func wrongCodesSentAtOnceOnOneTokenGetNoMoreChecksThanItsAttempts() async throws {
        let (fixture, clock) = try await Self.fixture()
        try await fixture.addUser("gail", password: Self.password)
        try await fixture.test { client async throws in
            let (key, _) = try await Self.turnOn(client, "gail", clock: clock)
            clock.advance(by: 30)
            let token = try await Self.mfaToken(client, "gail")
            let wrong = Self.other(than: key.code(at: clock.now))
            let codes = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<10 {
                    group.addTask { try await client.sendJSON(.post, "/login/mfa", ["mfa_token": token, "code": wrong]).error().code }
                }
                return try await group.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
            }
            #expect(codes == ["invalid_credentials": 5, "invalid_token": 5])
        }
        #expect(try await fixture.auditKinds().filter { $0 == "login_failed" }.count == 5)
    }

    /// Wrong codes are counted per account whatever the token or address, and a right
    /// password (which a thief of it has) does not clear the count; a completed login does.
    @Test func wrongCodesAreThrottledPerAccountAcrossNewTokens() async throws {
        let (base, clock) = try await Self.fixture()
        var fixture = base
        fixture.configuration.throttle.pairLimit = 3
        try await fixture.addUser("frank", password: Self.password)
        try await fixture.test { client async throws in
            let (key, _) = try await Self.turnOn(client, "frank", clock: clock)
            clock.advance(by: 30)
            for _ in 0..<3 {
                let token = try await Self.mfaToken(client, "frank")
                let wrong = try await client.sendJSON(
                    .post, "/login/mfa", ["mfa_token": token, "code": Self.other(than: key.code(at: clock.now))])
                #expect(wrong.status == .unauthorized)
            }
            let token = try await Self.mfaToken(client, "frank")
            let refused = try await client.sendJSON(.post, "/login/mfa", ["mfa_token": token, "code": key.code(at: clock.now)])
            #expect(refused.status == .tooManyRequests)
            #expect(try refused.error().code == "too_many_attempts")
            #expect(refused.headers[.retryAfter] != nil)
            clock.advance(by: 901)
            let fresh = try await Self.mfaToken(client, "frank")
            #expect(try await client.sendJSON(.post, "/login/mfa", ["mfa_token": fresh, "code": key.code(at: clock.now)]).status == .ok)
        }
        #expect(try await fixture.auditKinds().contains("login_throttled"))
    }

    @Test func theAppIsTurnedOffWithACodeOrThePassword() async throws {
        let (fixture, clock) = try await Self.fixture()
        try await fixture.addUser("gina", password: Self.password)
        try await fixture.test { client async throws in
            let (key, _) = try await Self.turnOn(client, "gina", clock: clock)
            clock.advance(by: 30)
            let token = try await Self.mfaToken(client, "gina")
            let tokens = try await client.sendJSON(.post, "/login/mfa", ["mfa_token": token, "code": key.code(at: clock.now)]).json()
            let access = try #require(tokens["access_token"] as? String)

            let wrongPassword = try await client.sendJSON(.delete, "/mfa/totp", ["password": "not the password"], bearer: access)
            #expect(wrongPassword.status == .unauthorized)
            // The code just used is refused here too.
            let replayed = try await client.sendJSON(.delete, "/mfa/totp", ["code": key.code(at: clock.now)], bearer: access)
            #expect(replayed.status == .unauthorized)
            let both = try await client.sendJSON(.delete, "/mfa/totp", ["code": "123456", "password": Self.password], bearer: access)
            #expect(both.status == .badRequest)
            #expect(try await client.sendJSON(.delete, "/mfa/totp", ["password": Self.password]).status == .unauthorized)
            let removed = try await client.sendJSON(.delete, "/mfa/totp", ["password": Self.password], bearer: access)
            #expect(removed.status == .noContent)
            #expect(try await client.login("gina", Self.password).status == .ok)
            let gone = try await client.sendJSON(.delete, "/mfa/totp", ["password": Self.password], bearer: access)
            #expect(gone.status == .notFound)

            // Turned on again, and off with a code this time.
            clock.advance(by: 30)
            let (again, _) = try await Self.turnOn(client, "gina", clock: clock)
            clock.advance(by: 30)
            let byCode = try await client.sendJSON(.delete, "/mfa/totp", ["code": again.code(at: clock.now)], bearer: access)
            #expect(byCode.status == .noContent)
        }
        #expect(try await fixture.auditDetails(of: "totp_disabled") == ["password", "code"])
        let left = try await fixture.withDatabase { database async throws in
            var count = 0
            for try await n in try await database.client.query("SELECT count(*)::int8 FROM recovery_codes").decode(Int.self) { count = n }
            return count
        }
        #expect(left == 0)
    }

    @Test func malformedSecondStepsAreRefusedWithAReason() async throws {
        let (fixture, _) = try await Self.fixture()
        try await fixture.test { client async throws in
            let cases: [(String, String)] = [
                (#"{"mfa_token":"t","code":"123456","recovery_code":"aaaa-bbbb-cccc-dddd"}"#, "send either code or recovery_code"),
                (#"{"mfa_token":"t"}"#, "send either code or recovery_code"),
                (#"{"mfa_token":"t","code":"12345"}"#, "code must be 6 digits"),
                (#"{"mfa_token":"t","code":"12345a"}"#, "code must be 6 digits"),
                (#"{"mfa_token":"t","code":123456}"#, "code"),
                (#"{"mfa_token":"t","code":null}"#, "code"),
                (#"{"code":"123456"}"#, "mfa_token"),
            ]
            for (body, reason) in cases {
                let response = try await client.postJSON("/login/mfa", body)
                #expect(response.status == .badRequest, "\(body)")
                #expect(try response.error().description.contains(reason), "\(body)")
            }
        }
    }

    /// HummingbirdOTP, as authd composes it, gives RFC 6238's SHA-1 test vectors (appendix B,
    /// their last 6 digits) for its key "12345678901234567890".
    @Test func authdsCodesAreRFC6238s() throws {
        let secret = try #require(TOTPSecret(bytes: Array("12345678901234567890".utf8)))
        let vectors: [(Int64, String)] = [
            (59, "287082"), (1_111_111_109, "081804"), (1_111_111_111, "050471"), (1_234_567_890, "005924"),
            (2_000_000_000, "279037"), (20_000_000_000, "353130"),
        ]
        for (time, code) in vectors {
            #expect(
                HummingbirdTOTP().code(secret: secret, step: TOTPPolicy.step(at: Date(timeIntervalSince1970: TimeInterval(time)))) == code)
        }
    }

    /// authd's codes (HummingbirdOTP) and the contracts' (ContractKit, what the stub checks
    /// and `contract verify` sends) agree on random keys and steps.
    @Test func authdAndTheContractsComputeTheSameCodes() throws {
        for _ in 0..<200 {
            let secret = TOTPSecret.generate()
            let step = Int64.random(in: 0...100_000_000)
            let contracts = try TOTP(secret: HummingbirdTOTP.base32(secret))
            #expect(contracts.key == secret.bytes)
            #expect(HummingbirdTOTP().code(secret: secret, step: step) == contracts.code(step: step))
        }
    }

    /// Enrolment takes no fields: no body at all, or `{}`; anything else is refused.
    @Test func enrolmentTakesNoBodyOrAnEmptyObject() async throws {
        let (fixture, _) = try await Self.fixture()
        try await fixture.addUser("hana", password: Self.password)
        try await fixture.test { client async throws in
            let access = try #require(try await client.login("hana", Self.password).json()["access_token"] as? String)
            let bearer: HTTPFields = [.authorization: "Bearer \(access)"]
            #expect(try await client.execute(uri: "/mfa/totp", method: .post, headers: bearer).status == .ok)
            #expect(try await client.sendJSON(.post, "/mfa/totp", [:], bearer: access).status == .ok)
            let extra = try await client.sendJSON(.post, "/mfa/totp", ["label": "phone"], bearer: access)
            #expect(extra.status == .badRequest)
            #expect(try extra.error().description == "label is not a field of this request")
            var text = bearer
            text[.contentType] = "text/plain"
            #expect(
                try await client.execute(uri: "/mfa/totp", method: .post, headers: text, body: ByteBuffer(string: "hi")).status
                    == .unsupportedMediaType)
            var json = bearer
            json[.contentType] = "application/json"
            #expect(
                try await client.execute(uri: "/mfa/totp", method: .post, headers: json, body: ByteBuffer(string: "[1]")).status
                    == .badRequest)
        }
    }

    /// A digit string of the same length that is not `code`.
    static func other(than code: String) -> String {
        String(code.map { $0 == "9" ? "0" : Character(String(($0.wholeNumberValue ?? 0) + 1)) })
    }
}

extension ServerFixture {
    /// The `detail` of each audit event of `kind`, oldest first.
    func auditDetails(of kind: String) async throws -> [String?] {
        try await withDatabase { database async throws in
            var details: [String?] = []
            for try await detail in try await database.client.query("SELECT detail FROM audit_events WHERE kind = \(kind) ORDER BY id")
                .decode(String?.self)
            {
                details.append(detail)
            }
            return details
        }
    }
}
