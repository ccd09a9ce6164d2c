import AuthCore
import AuthPostgres
import AuthServer
import AuthTestSupport
import Foundation
import HummingbirdTesting
import Testing

/// Requests whose body takes its time, over a real socket: what the body proves (a password)
/// is checked against the account as it is when the change is written, and a body that
/// trickles in still has a total deadline.
@Suite struct SlowBodyTests {
    static let password = "correct horse battery staple"
    static let resetPassword = "the operator's fresh passphrase"

    /// The fixture listening on a free port, with a user `ann`.
    /// The body's halves may lie minutes apart on a loaded machine (a test took 117 s, and
    /// the connection was reset): only the timeout's own test gives it a short one.
    static func fixture(bodyTimeout: Duration = .seconds(300)) async throws -> (ServerFixture, User) {
        var fixture = try await ServerFixture()
        fixture.configuration.port = 0
        fixture.configuration.bodyTimeout = bodyTimeout
        fixture.configuration.idleTimeout = .seconds(300)
        let user = try await fixture.addUser("ann", password: password)
        return (fixture, user)
    }

    /// Sends `method path` with `json` in two parts: the head and a few bytes, then, after
    /// `meanwhile` has run, the rest; the answer's status line and body.
    static func slowly(
        _ method: String, _ path: String, bearer: String, json: String, port: Int, meanwhile: () async throws -> Void
    ) async throws -> (head: String, body: String) {
        let (head, body) = RawHTTP.request(method, path, bearer: bearer, json: json)
        let connection = try await RawHTTP.Connection.open(port: port)
        try await connection.send(head + Array(body.prefix(5)))
        // The head has long arrived when the account changes: the route has begun.
        try await Task.sleep(for: .milliseconds(500))
        try await meanwhile()
        try await connection.send(Array(body.dropFirst(5)))
        return try #require(RawHTTP.split(try await connection.answer()))
    }

    /// An operator's reset of `user`, straight in the database.
    static func reset(_ user: User, in fixture: ServerFixture) async throws {
        let phc = try Argon2idHasher(parameters: ServerFixture.lightHash).hash(resetPassword)
        _ = try await fixture.withDatabase { database in
            try await PostgresAccountTokenRepository(database: database).setPassword(
                PasswordChange(userID: user.id, passwordHash: phc, replacing: nil, now: Date())
            )
        }
    }

    static func accessToken(_ client: any TestClientProtocol) async throws -> String {
        try #require(try await client.login("ann", password).json()["access_token"] as? String)
    }

    /// The old password, sent slowly past an operator's reset, changes nothing: the owner's
    /// new password (the operator's) still works.
    @Test func aPasswordChangeInASlowBodyLosesToAResetMadeMeanwhile() async throws {
        let (fixture, user) = try await Self.fixture()
        try await fixture.application().test(.live) { client async throws in
            let port = try #require(client.port)
            let token = try await Self.accessToken(client)
            let (head, body) = try await Self.slowly(
                "POST", "/password", bearer: token,
                json: #"{"current_password":"\#(Self.password)","new_password":"the attacker's own passphrase"}"#, port: port
            ) { try await Self.reset(user, in: fixture) }
            // The reset ended the token's session: the account, read once the body is in, is
            // refused with it (and, had the read come first, the write would find another hash).
            #expect(head.hasPrefix("HTTP/1.1 401"), "\(head)\n\(body)")
            #expect(body.contains("invalid_token"))
            #expect(try await client.login("ann", Self.resetPassword).status == .ok)
            #expect(try await client.login("ann", "the attacker's own passphrase").status == .unauthorized)
        }
    }

    /// Deleting the account with the old password, sent slowly past a reset: refused, the
    /// account stays.
    @Test func aDeletionInASlowBodyLosesToAResetMadeMeanwhile() async throws {
        let (fixture, user) = try await Self.fixture()
        try await fixture.application().test(.live) { client async throws in
            let port = try #require(client.port)
            let token = try await Self.accessToken(client)
            let (head, _) = try await Self.slowly("DELETE", "/me", bearer: token, json: #"{"password":"\#(Self.password)"}"#, port: port) {
                try await Self.reset(user, in: fixture)
            }
            #expect(head.hasPrefix("HTTP/1.1 401"), "\(head)")
            #expect(try await client.login("ann", Self.resetPassword).status == .ok)
        }
    }

    /// A password change slowly sent while the operator disables the account: refused, and
    /// the account stays disabled (setting a password never enables one).
    @Test func aPasswordChangeInASlowBodyDoesNotReEnableADisabledAccount() async throws {
        let (fixture, _) = try await Self.fixture()
        try await fixture.application().test(.live) { client async throws in
            let port = try #require(client.port)
            let token = try await Self.accessToken(client)
            let (head, _) = try await Self.slowly(
                "POST", "/password", bearer: token,
                json: #"{"current_password":"\#(Self.password)","new_password":"another passphrase here"}"#,
                port: port
            ) {
                _ = try await fixture.withDatabase {
                    try await PostgresUserRepository(database: $0).setDisabled(true, usernameKey: "ann", at: Date())
                }
            }
            #expect(head.hasPrefix("HTTP/1.1 401"), "\(head)")
            let login = try await client.login("ann", Self.password)
            #expect(try login.error().code == "account_disabled")
        }
    }

    /// A body that keeps a byte coming under the idle timeout still ends at the body deadline:
    /// 408 `request_timeout`, and the connection is closed.
    @Test func aTrickledBodyMeetsItsDeadline() async throws {
        let (fixture, _) = try await Self.fixture(bodyTimeout: .seconds(1))
        try await fixture.application().test(.live) { client async throws in
            let port = try #require(client.port)
            let (head, body) = RawHTTP.request("POST", "/login", bearer: nil, json: #"{"username":"ann","password":"\#(Self.password)"}"#)
            let connection = try await RawHTTP.Connection.open(port: port)
            let started = ContinuousClock.now
            try await connection.send(head)
            // 60 bytes, one every 100 ms: 6 s if nothing stopped it.
            let sent = try await connection.trickle(body, interval: .milliseconds(100))
            let answer = try await connection.answer()
            #expect(sent < body.count)
            #expect(ContinuousClock.now - started >= .seconds(1))
            let (status, json) = try #require(RawHTTP.split(answer))
            #expect(status.hasPrefix("HTTP/1.1 408"), "\(status)")
            #expect(status.lowercased().contains("connection: close"))
            #expect(json.contains(#""error":"request_timeout""#))
            #expect(try await connection.isClosed(within: .seconds(60)))
            // The service answers the next request as usual.
            #expect(try await client.login("ann", Self.password).status == .ok)
        }
    }
}
