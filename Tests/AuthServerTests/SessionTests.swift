import AuthCore
import AuthPostgres
import AuthServer
import AuthTestSupport
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JOSE
import NIOCore
import Testing

/// Refresh, logout and /me on PostgreSQL, through the router.
@Suite struct SessionTests {
    static let password = "correct horse battery staple"
    static let bearerChallenge = #"Bearer realm="authd", error="invalid_token""#

    @Test func aRefreshTokenWorksOnceAndItsReplayRevokesTheFamily() async throws {
        let fixture = try await ServerFixture()
        let alice = try await fixture.addUser("alice", password: Self.password)
        try await fixture.test { client async throws in
            let first = try await client.login("alice", Self.password).json()
            let token1 = try #require(first["refresh_token"] as? String)

            let second = try await client.refresh(token1)
            #expect(second.status == .ok)
            #expect(second.headers[.cacheControl] == "no-store")
            let body = try second.json()
            #expect(Set(body.keys) == ["access_token", "token_type", "expires_in", "refresh_token", "refresh_expires_in"])
            let token2 = try #require(body["refresh_token"] as? String)
            #expect(token2 != token1)
            #expect(
                try await client.me(try #require(body["access_token"] as? String)).json()["user_id"] as? String
                    == alice.id.uuidString.lowercased())

            // The rotated token again: refused, and the whole family goes with it.
            let replay = try await client.refresh(token1)
            #expect(replay.status == .unauthorized)
            #expect(try replay.error().code == "invalid_token")
            #expect(replay.headers[.wwwAuthenticate] == Self.bearerChallenge)
            let newest = try await client.refresh(token2)
            #expect(newest.status == .unauthorized)
            #expect(try newest.error().code == "invalid_token")

            // Another login starts a family of its own.
            let other = try await client.login("alice", Self.password).json()
            #expect(try await client.refresh(try #require(other["refresh_token"] as? String)).status == .ok)
        }
        let kinds = try await fixture.auditKinds()
        #expect(kinds.filter { $0 == "token_refreshed" }.count == 2)
        #expect(kinds.contains("refresh_reuse_detected"))
        // A refresh's event, written in the rotation's statement, names the token's owner.
        let events = try await fixture.withDatabase { try await PostgresAuditLog(database: $0).recent(limit: 50, usernameKey: "alice") }
        let refreshes = events.filter { $0.kind == .tokenRefreshed || $0.kind == .refreshReuseDetected }
        #expect(refreshes.count == 3)
        #expect(refreshes.allSatisfy { $0.userID == alice.id })
        #expect(refreshes.first { $0.kind == .refreshReuseDetected }?.detail == "family revoked")
    }

    @Test func unknownExpiredAndMalformedRefreshTokens() async throws {
        var fixture = try await ServerFixture()
        let clock = TestClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        fixture.configuration.clock = clock
        fixture.configuration.refreshTokenLifetime = 60
        try await fixture.addUser("alice", password: Self.password)
        try await fixture.test { client async throws in
            let unknown = try await client.refresh(RefreshToken.generate().token)
            #expect(unknown.status == .unauthorized)
            #expect(try unknown.error().code == "invalid_token")

            let empty = try await client.refresh("")
            #expect(empty.status == .badRequest)
            #expect(try empty.error().code == "invalid_request")
            let missing = try await client.postJSON("/token/refresh", "{}")
            #expect(missing.status == .badRequest)
            #expect(try missing.error().description.contains("refresh_token"))
            let wrongType = try await client.postJSON("/token/refresh", #"{"refresh_token": 42}"#)
            #expect(wrongType.status == .badRequest)

            let login = try await client.login("alice", Self.password).json()
            let token = try #require(login["refresh_token"] as? String)
            clock.advance(by: 61)
            let expired = try await client.refresh(token)
            #expect(expired.status == .unauthorized)
            #expect(try expired.error().code == "invalid_token")
        }
    }

    @Test func logoutRevokesTheFamilyAndIsIdempotent() async throws {
        let fixture = try await ServerFixture()
        try await fixture.addUser("alice", password: Self.password)
        try await fixture.test { client async throws in
            let login = try await client.login("alice", Self.password).json()
            let token1 = try #require(login["refresh_token"] as? String)
            let token2 = try #require(try await client.refresh(token1).json()["refresh_token"] as? String)

            // Logging out with an older token of the family ends the whole family.
            let logout = try await client.postJSON("/logout", #"{"refresh_token": "\#(token1)"}"#)
            #expect(logout.status == .noContent)
            #expect(logout.headers[.cacheControl] == "no-store")
            #expect(logout.body.readableBytes == 0)
            #expect(try await client.refresh(token2).status == .unauthorized)
            #expect(try await client.postJSON("/logout", #"{"refresh_token": "\#(token2)"}"#).status == .noContent)
            #expect(try await client.postJSON("/logout", #"{"refresh_token": "unknown-token"}"#).status == .noContent)
            let empty = try await client.postJSON("/logout", #"{"refresh_token": ""}"#)
            #expect(empty.status == .badRequest)
        }
        #expect(try await fixture.auditKinds().contains("logged_out"))
    }

    @Test func aDisabledAccountCannotRefreshOrAskWhoItIs() async throws {
        let fixture = try await ServerFixture()
        try await fixture.addUser("alice", password: Self.password)
        try await fixture.test { client async throws in
            let login = try await client.login("alice", Self.password).json()
            _ = try await fixture.withDatabase { database async throws in
                try await PostgresUserRepository(database: database).setDisabled(true, usernameKey: "alice", at: Date())
            }
            #expect(try await client.refresh(try #require(login["refresh_token"] as? String)).status == .unauthorized)
            let me = try await client.me(try #require(login["access_token"] as? String))
            #expect(me.status == .unauthorized)
            #expect(me.headers[.wwwAuthenticate] == Self.bearerChallenge)
        }
    }

    @Test func meAnswersWithTheTokensAccount() async throws {
        let fixture = try await ServerFixture()
        let alice = try await fixture.addUser("Alice", password: Self.password)
        try await fixture.test { client async throws in
            let login = try await client.login("alice", Self.password).json()
            let me = try await client.me(try #require(login["access_token"] as? String))
            #expect(me.status == .ok)
            #expect(me.headers[.cacheControl] == "no-store")
            let body = try me.json()
            #expect(Set(body.keys) == ["user_id", "username", "created_at"])
            #expect(body["user_id"] as? String == alice.id.uuidString.lowercased())
            #expect(body["username"] as? String == "Alice")
            let created = try #require(body["created_at"] as? String)
            #expect(try Date(created, strategy: .iso8601).timeIntervalSince(alice.createdAt) < 1)
            // The scheme is case-insensitive.
            let lower = try await client.execute(
                uri: "/me", method: .get, headers: [.authorization: "bearer \(try #require(login["access_token"] as? String))"])
            #expect(lower.status == .ok)
        }
    }

    @Test func everyBadBearerTokenIsInvalidTokenWithTheRFC6750Challenge() async throws {
        var fixture = try await ServerFixture()
        let clock = TestClock(now: Date())
        fixture.configuration.clock = clock
        try await fixture.addUser("alice", password: Self.password)
        try await fixture.test { client async throws in
            let login = try await client.login("alice", Self.password).json()
            let token = try #require(login["access_token"] as? String)
            let parts = token.split(separator: ".").map(String.init)
            let header = try #require(Base64URL.decode(parts[0]))
            let kid = try #require((try JSONSerialization.jsonObject(with: header) as? [String: Any])?["kid"] as? String)
            let payload = parts[1]

            let foreign = Curve25519.Signing.PrivateKey()
            var cases: [(String, [HTTPField])] = [
                ("no Authorization header", []),
                ("another scheme", [HTTPField(name: .authorization, value: "Basic YWxpY2U6cGFzcw==")]),
                ("an empty bearer", [HTTPField(name: .authorization, value: "Bearer ")]),
                ("not a JWT", [HTTPField(name: .authorization, value: "Bearer not-a-jwt")]),
            ]
            func bearer(_ name: String, _ jwt: String) {
                cases.append((name, [HTTPField(name: .authorization, value: "Bearer \(jwt)")]))
            }
            // One signature byte changed.
            var signature = try #require(Base64URL.decode(parts[2]))
            signature[0] ^= 0x01
            bearer("a bad signature", "\(parts[0]).\(payload).\(Base64URL.encode(signature))")
            bearer("alg none", Self.jws(header: #"{"alg":"none","kid":"\#(kid)"}"#, payload: payload) { _ in Data() })
            bearer("alg none, no kid", Self.jws(header: #"{"alg":"none"}"#, payload: payload) { _ in Data() })
            bearer(
                "HS256 keyed with the public JWK",
                Self.jws(header: #"{"alg":"HS256","kid":"\#(kid)"}"#, payload: payload) { input in
                    Data(HMAC<SHA256>.authenticationCode(for: input, using: SymmetricKey(data: Data(kid.utf8))))
                })
            bearer(
                "a foreign Ed25519 key under our kid",
                Self.jws(header: #"{"alg":"EdDSA","kid":"\#(kid)"}"#, payload: payload) { input in
                    try! foreign.signature(for: input)
                })
            bearer(
                "a foreign Ed25519 key with an unknown kid",
                Self.jws(header: #"{"alg":"EdDSA","kid":"foreign"}"#, payload: payload) { input in
                    try! foreign.signature(for: input)
                })
            for (name, fields) in cases {
                let response = try await client.execute(uri: "/me", method: .get, headers: HTTPFields(fields))
                #expect(response.status == .unauthorized, "\(name)")
                #expect(try response.error().code == "invalid_token", "\(name)")
                #expect(response.headers[.wwwAuthenticate] == Self.bearerChallenge, "\(name)")
            }

            // The genuine token works until it expires.
            #expect(try await client.me(token).status == .ok)
            clock.advance(by: 901)
            #expect(try await client.me(token).status == .unauthorized)
        }
    }

    @Test func concurrentRefreshesOfOneTokenHaveExactlyOneWinner() async throws {
        let fixture = try await ServerFixture()
        try await fixture.addUser("alice", password: Self.password)
        try await fixture.test { client async throws in
            let login = try await client.login("alice", Self.password).json()
            let token = try #require(login["refresh_token"] as? String)
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await client.refresh(token).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .ok }.count == 1)
            #expect(statuses.filter { $0 == .unauthorized }.count == 7)
        }
    }

    @Test func metricsCountLoginsRefreshesAndRequests() async throws {
        let fixture = try await ServerFixture()
        try await fixture.addUser("alice", password: Self.password)
        let text = try await fixture.test { client async throws in
            let login = try await client.login("alice", Self.password).json()
            _ = try await client.login("alice", "wrong password")
            let token = try #require(login["refresh_token"] as? String)
            _ = try await client.refresh(token)
            _ = try await client.refresh(token)
            let metrics = try await client.execute(uri: "/metrics", method: .get)
            #expect(metrics.status == .ok)
            #expect(metrics.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            return String(buffer: metrics.body)
        }
        for line in [
            #"authd_logins_total{result="success"} 1"#,
            #"authd_logins_total{result="invalid_credentials"} 1"#,
            #"authd_refreshes_total{result="rotated"} 1"#,
            #"authd_refreshes_total{result="reused"} 1"#,
            "authd_refresh_reuse_detected_total 1",
            #"authd_http_requests_total{method="POST",route="/login",status="200"} 1"#,
            #"authd_http_requests_total{method="POST",route="/login",status="401"} 1"#,
            #"authd_http_requests_total{method="POST",route="/token/refresh",status="401"} 1"#,
            "authd_hash_queue_depth 0.0",
        ] {
            #expect(text.contains(line + "\n"), "\(line)")
        }
        #expect(text.contains("authd_hash_duration_seconds_count 2"))
        #expect(!text.contains(Self.password))
    }

    /// A compact JWS with `header`, the given payload segment and `sign`'s signature.
    static func jws(header: String, payload: String, sign: (Data) throws -> Data) -> String {
        CompactJWS.serialize(header: Data(header.utf8), payload: Base64URL.decode(payload) ?? Data()) { (try? sign($0)) ?? Data() }
    }
}

extension TestClientProtocol {
    /// POSTs `{"refresh_token": token}` to /token/refresh.
    func refresh(_ token: String) async throws -> TestResponse {
        let body = try JSONSerialization.data(withJSONObject: ["refresh_token": token])
        return try await postJSON("/token/refresh", String(decoding: body, as: UTF8.self))
    }

    /// GETs /me with `Authorization: Bearer token`.
    func me(_ token: String) async throws -> TestResponse {
        try await execute(uri: "/me", method: .get, headers: [.authorization: "Bearer \(token)"])
    }
}

extension ServerFixture {
    /// The kinds in the audit log, oldest first.
    func auditKinds() async throws -> [String] {
        try await withDatabase { database async throws in
            var kinds: [String] = []
            for try await kind in try await database.client.query("SELECT kind FROM audit_events ORDER BY id").decode(String.self) {
                kinds.append(kind)
            }
            return kinds
        }
    }
}
