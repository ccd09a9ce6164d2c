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

/// `POST /login/id-token` against a provider served over HTTP (``TestIdentityProvider``):
/// an app's native sign-in makes an account once and signs in to it after; every attack on
/// the token is refused (and audited by its reason); the keys are fetched once, not once
/// per made-up `kid`.
@Suite struct IDTokenSignInTests {
    static let nonce = TestIdentityProvider.rawNonce

    static func signIn(_ client: some TestClientProtocol, _ token: String, provider: String = "test", nonce: String? = nonce)
        async throws -> TestResponse
    {
        var body: [String: Any] = ["provider": provider, "id_token": token]
        if let nonce { body["nonce"] = nonce }
        return try await client.sendJSON(.post, "/login/id-token", body)
    }

    @Test func aFirstSignInMakesAnAccountWithTheVerifiedEmailAndLaterOnesSignInToIt() async throws {
        let upstream = TestIdentityProvider()
        try await upstream.withRunning { issuer in
            let fixture = try await ServerFixture()
            try await fixture.addProvider("test", issuer: issuer)
            try await fixture.test { client in
                let first = try await Self.signIn(client, upstream.token(TestIdentityProvider.claims(issuer: issuer)))
                #expect(first.status == .ok)
                let access = try #require(try first.json()["access_token"] as? String)
                #expect(try first.json()["refresh_token"] is String)
                let me = try await IdentityLinkingTests.me(client, access)
                #expect(me["username"] as? String == "sam@example.com")
                let identities = try #require(me["identities"] as? [[String: Any]])
                #expect(identities.count == 1)
                #expect(identities.first?["provider"] as? String == "test")
                #expect(identities.first?["email"] as? String == "sam@example.com")

                // Another token of the same identity (and every key type) signs in to the same account.
                for key in ["ec-1", "ed-1"] {
                    let again = try await Self.signIn(
                        client, upstream.token(TestIdentityProvider.claims(issuer: issuer), kid: key, signingKey: key))
                    #expect(again.status == .ok, "\(key)")
                    let token = try #require(try again.json()["access_token"] as? String)
                    let profile = try await client.execute(uri: "/me", method: .get, headers: [.authorization: "Bearer \(token)"]).json()
                    #expect(profile["user_id"] as? String == me["user_id"] as? String)
                }
            }
            let accounts = try await fixture.withDatabase { database async throws in
                try await database.client.query(
                    "SELECT count(*)::int8, bool_and(NOT has_password), bool_and(email_verified_at IS NOT NULL) FROM users"
                )
                .decode((Int, Bool, Bool).self).first { _ in true }
            }
            #expect(accounts?.0 == 1 && accounts?.1 == true && accounts?.2 == true)
            #expect(try await fixture.auditDetails(of: "identity_linked") == ["test:created"])
            #expect(try await fixture.auditDetails(of: "login_succeeded") == ["provider:test", "provider:test", "provider:test"])
        }
    }

    @Test func everyAttackOnTheTokenIsRefusedAndAuditedByItsReason() async throws {
        let upstream = TestIdentityProvider()
        try await upstream.withRunning { issuer in
            let fixture = try await ServerFixture()
            try await fixture.addProvider("test", issuer: issuer)
            let good = TestIdentityProvider.claims(issuer: issuer)
            func with(_ changes: [String: Any?]) -> [String: Any] {
                var claims = good
                for (key, value) in changes { claims[key] = value }
                return claims
            }
            let now = Int(Date().timeIntervalSince1970)
            let foreign = P256.Signing.PrivateKey()
            let attacks: [(String, String, String?, IDTokenRefusal)] = [
                ("another audience", upstream.token(with(["aud": "com.attacker.app"])), Self.nonce, .audience),
                (
                    "several audiences without azp", upstream.token(with(["aud": [TestIdentityProvider.audience, "other"]])), Self.nonce,
                    .authorizedParty
                ),
                ("expired", upstream.token(with(["iat": now - 7_200, "exp": now - 3_600])), Self.nonce, .expired),
                ("issued in the future", upstream.token(with(["iat": now + 3_600, "exp": now + 7_200])), Self.nonce, .issuedInFuture),
                ("another issuer", upstream.token(with(["iss": "https://accounts.example.net"])), Self.nonce, .issuer),
                ("the raw nonce", upstream.token(with(["nonce": Self.nonce])), Self.nonce, .nonce),
                ("another nonce", upstream.token(good), "another raw nonce", .nonce),
                ("a nonce nobody posted", upstream.token(good), nil, .nonce),
                ("no nonce where one was posted", upstream.token(with(["nonce": nil])), Self.nonce, .nonce),
                ("no sub", upstream.token(with(["sub": nil])), Self.nonce, .subject),
                ("alg none", upstream.unsecured(good), Self.nonce, .algorithm),
                ("HS256 keyed with the public key", upstream.hmacWithPublicKey(good), Self.nonce, .algorithm),
                (
                    "RS256 claimed for the EC key", upstream.token(good, kid: "ec-1", signingKey: "ec-1", alg: "RS256"), Self.nonce,
                    .algorithm
                ),
                ("signed by another key under its kid", Self.forged(good, by: foreign, kid: "ec-1"), Self.nonce, .signature),
                ("a kid it does not publish", upstream.token(good, kid: "rsa-2"), Self.nonce, .unknownKey),
                ("not a JWS", "not.a-token", Self.nonce, .malformed),
            ]
            let token = upstream.token(good)
            try await fixture.test { client in
                for (name, token, nonce, _) in attacks {
                    let answer = try await Self.signIn(client, token, nonce: nonce)
                    #expect(answer.status == .unauthorized, "\(name)")
                    #expect(try answer.error().code == "invalid_credentials", "\(name)")
                }
                // A good token is used once.
                #expect(try await Self.signIn(client, token).status == .ok)
                let replayed = try await Self.signIn(client, token)
                #expect(replayed.status == .unauthorized)
            }
            let details = try await fixture.auditDetails(of: "login_failed")
            #expect(details == attacks.map { "test:\($0.3.rawValue)" } + ["test:id_token_replayed"])
            #expect(try await fixture.auditKinds().filter { $0 == "user_created" }.count == 1)
        }
    }

    /// A token signed with `key` (not the provider's) under the provider's `kid`.
    static func forged(_ claims: [String: Any], by key: P256.Signing.PrivateKey, kid: String) -> String {
        let header = Data(#"{"alg":"ES256","kid":"\#(kid)"}"#.utf8)
        return CompactJWS.serialize(header: header, payload: try! JSONSerialization.data(withJSONObject: claims)) {
            try! key.signature(for: $0).rawRepresentation
        }
    }

    @Test func aNewKeyIsFetchedOnItsFirstTokenButMadeUpKeyIDsFetchNothingMore() async throws {
        let upstream = TestIdentityProvider()
        upstream.publish(["rsa-1"])
        try await upstream.withRunning { issuer in
            var fixture = try await ServerFixture()
            let clock = TestClock(now: Date())
            fixture.configuration.clock = clock
            try await fixture.addProvider("test", issuer: issuer)
            let claims = TestIdentityProvider.claims(issuer: issuer)
            let (first, rotated) = (upstream.token(claims), upstream.token(claims, kid: "ec-1", signingKey: "ec-1"))
            let madeUp = (0..<40).map { upstream.token(claims, kid: "made-up-\($0)") }
            try await fixture.test { client in
                #expect(try await Self.signIn(client, first).status == .ok)
                #expect(upstream.keyFetches == 1)
                // The provider rotates: its new key is fetched at its first token, once the
                // last fetch is 30 s old.
                upstream.publish(["rsa-1", "ec-1"])
                clock.advance(by: 31)
                #expect(try await Self.signIn(client, rotated).status == .ok)
                #expect(upstream.keyFetches == 2)
                // Made-up kids, at once: within 30 s of that fetch, none fetches again.
                try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                    for token in madeUp {
                        group.addTask { try await Self.signIn(client, token).status }
                    }
                    for try await status in group { #expect(status == .unauthorized || status == .tooManyRequests) }
                }
                #expect(upstream.keyFetches == 2)
                // Past the interval, one more fetch for all of them.
                clock.advance(by: 31)
                try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                    for token in madeUp.prefix(10) {
                        group.addTask { try await Self.signIn(client, token).status }
                    }
                    for try await status in group { #expect(status == .unauthorized || status == .tooManyRequests) }
                }
                #expect(upstream.keyFetches == 3)
            }
        }
    }

    @Test func aTokenWithoutKIDIsCheckedAgainstTheOneKeyOfItsAlgorithm() async throws {
        let upstream = TestIdentityProvider()
        upstream.publish(["rsa-1", "ec-1"], withoutKID: true)
        try await upstream.withRunning { issuer in
            let fixture = try await ServerFixture()
            try await fixture.addProvider("test", issuer: issuer)
            let claims = TestIdentityProvider.claims(issuer: issuer)
            let (rsa, ec, ed) = (
                upstream.token(claims, kid: nil), upstream.token(claims, kid: nil, signingKey: "ec-1"),
                upstream.token(claims, kid: nil, signingKey: "ed-1")
            )
            try await fixture.test { client async throws in
                #expect(try await Self.signIn(client, rsa).status == .ok)
                #expect(try await Self.signIn(client, ec).status == .ok)
                // The Ed25519 key is not published: nothing to check it against.
                #expect(try await Self.signIn(client, ed).status == .unauthorized)
            }
        }
    }

    @Test func aProviderWhoseKeysAreOutOfReachIsAnswered503() async throws {
        let upstream = TestIdentityProvider()
        let fixture = try await ServerFixture()
        // The provider is added, then goes away before its keys were ever fetched.
        let token = try await upstream.withRunning { issuer in
            try await fixture.addProvider("test", issuer: issuer)
            return upstream.token(TestIdentityProvider.claims(issuer: issuer))
        }
        try await fixture.test { client in
            let answer = try await Self.signIn(client, token)
            #expect(answer.status == .serviceUnavailable)
            #expect(try answer.error().code == "service_unavailable")
            #expect(answer.headers[.retryAfter] == "5")
        }
    }

    @Test func anUnknownIdentityMakesNoAccountWhereNoneMayBeMade() async throws {
        let upstream = TestIdentityProvider()
        try await upstream.withRunning { issuer in
            let fixture = try await ServerFixture()
            try await fixture.addProvider("test", issuer: issuer, createsAccounts: false)
            try await fixture.test { client in
                let answer = try await Self.signIn(client, upstream.token(TestIdentityProvider.claims(issuer: issuer)))
                #expect(answer.status == .notFound)
                #expect(try answer.error().code == "not_found")
                let unknown = try await Self.signIn(client, upstream.token(TestIdentityProvider.claims(issuer: issuer)), provider: "nobody")
                #expect(unknown.status == .badRequest)
            }
            #expect(try await fixture.auditKinds().contains("user_created") == false)
        }
    }
}
