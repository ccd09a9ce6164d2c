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
import Testing

@Suite struct LoginTests {
    @Test func validCredentialsReturnABearerTokenPair() async throws {
        var fixture = try await ServerFixture()
        let clock = TestClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        fixture.configuration.clock = clock
        let alice = try await fixture.addUser("alice", password: "correct horse battery staple")
        let (body, refreshToken) = try await fixture.test { client async throws in
            let response = try await client.login("alice", "correct horse battery staple")
            #expect(response.status == .ok)
            #expect(response.headers[.cacheControl] == "no-store")
            #expect(response.headers[.contentType] == "application/json; charset=utf-8")
            let body = try response.json()
            return (body.mapValues { "\($0)" }, try #require(body["refresh_token"] as? String))
        }
        #expect(Set(body.keys) == ["access_token", "token_type", "expires_in", "refresh_token", "refresh_expires_in"])
        #expect(body["token_type"] == "Bearer")
        #expect(body["expires_in"] == "900")
        #expect(body["refresh_expires_in"] == "2592000")
        // 256 bits, base64url without padding.
        #expect(refreshToken.count == 43)
        #expect(refreshToken.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })

        // Only the refresh token's hash is stored.
        let stored = try await fixture.withDatabase { database async throws in
            var rows: [String] = []
            for try await (hash, userID) in try await database.client.query("SELECT token_hash, user_id FROM refresh_tokens").decode(
                (String, UUID).self)
            {
                #expect(userID == alice.id)
                rows.append(hash)
            }
            return rows
        }
        #expect(stored == [SHA256.hexDigest(of: refreshToken)])
    }

    @Test func theAccessTokenVerifiesAgainstThePublishedJWKS() async throws {
        var fixture = try await ServerFixture()
        fixture.configuration.issuer = "https://auth.example"
        let alice = try await fixture.addUser("alice", password: "correct horse battery staple")
        let (token, jwks) = try await fixture.test { client async throws in
            let login = try await client.login("alice", "correct horse battery staple").json()
            let jwks = try await client.execute(uri: "/.well-known/jwks.json", method: .get)
            #expect(jwks.status == .ok)
            return (
                try #require(login["access_token"] as? String),
                try JSONDecoder().decode(SigningKey.JWKSet.self, from: Data(buffer: jwks.body))
            )
        }
        let parts = token.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        let header = try decode(parts[0])
        let claims = try decode(parts[1])
        #expect(header["alg"] as? String == "EdDSA")
        let kid = try #require(header["kid"] as? String)
        let jwk = try #require(jwks.keys.first { $0.kid == kid })
        let publicKey = try Curve25519.Signing.PublicKey(rawRepresentation: try base64URL(try #require(jwk.x)))
        #expect(publicKey.isValidSignature(try base64URL(parts[2]), for: Data("\(parts[0]).\(parts[1])".utf8)))
        #expect(claims["iss"] as? String == "https://auth.example")
        #expect(claims["sub"] as? String == alice.id.uuidString.lowercased())
        let iat = try #require(claims["iat"] as? Int)
        #expect(claims["exp"] as? Int == iat + 900)
        #expect(claims["jti"] is String)
    }

    @Test func usernamesMatchAfterNFCAndCaseInsensitively() async throws {
        let fixture = try await ServerFixture()
        try await fixture.addUser("Ame\u{301}lie", password: "correct horse battery staple")
        try await fixture.test { client async throws in
            #expect(try await client.login("AMÉLIE", "correct horse battery staple").status == .ok)
            #expect(try await client.login("amélie", "correct horse battery staple").status == .ok)
        }
    }

    @Test func unknownUserAndWrongPasswordAreIndistinguishable() async throws {
        var fixture = try await ServerFixture()
        let pool = BlockingWorkPool()
        fixture.configuration.hashingPool = pool
        try await fixture.addUser("alice", password: "correct horse battery staple")
        try await fixture.test { client async throws in
            let before = await pool.load().completed
            let wrong = try await client.login("alice", "wrong password")
            let afterWrong = await pool.load().completed
            let unknown = try await client.login("mallory", "wrong password")
            let afterUnknown = await pool.load().completed

            #expect(wrong.status == .unauthorized)
            #expect(unknown.status == .unauthorized)
            #expect(wrong.body == unknown.body)
            #expect(try wrong.error().code == "invalid_credentials")
            var wrongHeaders = wrong.headers
            var unknownHeaders = unknown.headers
            for name in [HTTPField.Name("X-Request-Id")!, .date] {
                wrongHeaders[name] = nil
                unknownHeaders[name] = nil
            }
            #expect(wrongHeaders == unknownHeaders)
            #expect(wrong.headers[.wwwAuthenticate] == #"Bearer realm="authd""#)
            // Both cost exactly one Argon2id verification.
            #expect(afterWrong - before == 1)
            #expect(afterUnknown - afterWrong == 1)
        }
    }

    @Test func disabledAccountsAreReportedOnlyWithTheRightPassword() async throws {
        let fixture = try await ServerFixture()
        try await fixture.addUser("bob", password: "correct horse battery staple", disabled: true)
        try await fixture.test { client async throws in
            let wrong = try await client.login("bob", "wrong password")
            #expect(wrong.status == .unauthorized)
            #expect(try wrong.error().code == "invalid_credentials")
            let right = try await client.login("bob", "correct horse battery staple")
            #expect(right.status == .unauthorized)
            #expect(try right.error().code == "account_disabled")
            #expect(right.headers[.wwwAuthenticate] != nil)
            #expect(right.headers[.cacheControl] == "no-store")
        }
    }

    @Test func outdatedHashesAreRehashedOnSuccessfulLogin() async throws {
        let fixture = try await ServerFixture()
        let weak = Argon2idHasher.Parameters(memoryKiB: 512, iterations: 1, parallelism: 1)
        try await fixture.addUser("carol", password: "correct horse battery staple", parameters: weak)
        try await fixture.test { client async throws in
            #expect(try await client.login("carol", "correct horse battery staple").status == .ok)
        }
        let stored = try await fixture.withDatabase { database async throws in
            try await PostgresUserRepository(database: database).user(withKey: "carol")?.passwordHash
        }
        let phc = try #require(stored)
        #expect(Argon2idHasher.parameters(of: phc) == ServerFixture.lightHash)
        #expect(Argon2idHasher(parameters: ServerFixture.lightHash).verify("correct horse battery staple", against: phc))
    }

    @Test func theSigningKeyIsCreatedOnceAndSharedByInstances() async throws {
        let fixture = try await ServerFixture()
        let first = try await fixture.test { client async throws in
            try JSONDecoder().decode(
                SigningKey.JWKSet.self, from: Data(buffer: try await client.execute(uri: "/.well-known/jwks.json", method: .get).body))
        }
        let second = try await fixture.test { client async throws in
            try JSONDecoder().decode(
                SigningKey.JWKSet.self, from: Data(buffer: try await client.execute(uri: "/.well-known/jwks.json", method: .get).body))
        }
        #expect(first.keys.count == 1)
        #expect(first == second)
        #expect(first.keys[0].kty == "OKP" && first.keys[0].crv == "Ed25519" && first.keys[0].use == "sig")
    }

    func decode(_ segment: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: try base64URL(segment)) as? [String: Any])
    }

    func base64URL(_ text: String) throws -> Data {
        try #require(Base64URL.decode(text))
    }
}
