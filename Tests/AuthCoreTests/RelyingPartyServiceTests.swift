import AuthCore
import AuthTestSupport
import Foundation
import Testing

/// The relying-party rules on in-memory storage (OAuthRoutesTests prove the routes on
/// PostgreSQL): what introspection vouches for, and a client's registration.
@Suite struct RelyingPartyServiceTests {
    let storage = InMemoryStorage()
    let clock = TestClock(now: Date(timeIntervalSince1970: 1_800_000_000))
    let keyEncryptionKey = KeyEncryptionKey.generate()

    func services(issuerName: String = "authd") async throws -> (LoginService<InMemoryStorage>, RelyingPartyService<InMemoryStorage>) {
        let issuer = AccessTokenIssuer(issuer: issuerName, lifetime: 900, clock: clock)
        try issuer.install(try await KeyService(storage: storage, keyEncryptionKey: keyEncryptionKey, clock: clock).ensureKey())
        let login = try await LoginService.make(
            storage: storage, issuer: issuer,
            hashing: PasswordHashing(hasher: Argon2idHasher(parameters: .testLight), pool: BlockingWorkPool(width: 1, queueLimit: 4)),
            refreshLifetime: 3600, sessionMaxAge: 7200, clock: clock
        )
        return (login, RelyingPartyService(sessions: SessionService(storage: storage, issuer: issuer, refreshLifetime: 3600, clock: clock)))
    }

    func grant(_ login: LoginService<InMemoryStorage>) async throws -> TokenGrant {
        let user = try await login.storage.users.create(username: try Username("alice"), passwordHash: "unused", at: clock.now)
        return try await login.issueGrant(for: user)
    }

    @Test func anAccessTokenIsLiveUntilItExpires() async throws {
        let (login, parties) = try await services()
        let tokens = try await grant(login)
        #expect(try await parties.introspect(tokens.accessToken).active)
        clock.advance(by: 901)
        #expect(try await parties.introspect(tokens.accessToken) == .inactive)
        // The refresh token outlives it; once rotated it is used up.
        #expect(try await parties.introspect(tokens.refreshToken).active)
        _ = try await parties.refresh(refreshToken: tokens.refreshToken, origin: RequestOrigin())
        #expect(try await parties.introspect(tokens.refreshToken) == .inactive)
        await #expect(throws: AuthError.invalidGrant) { try await parties.refresh(refreshToken: tokens.refreshToken, origin: RequestOrigin()) }
    }

    @Test func anotherIssuersTokenIsNotVouchedFor() async throws {
        // Signed with the same key, by another issuer name.
        let (otherLogin, _) = try await services(issuerName: "someone-else")
        let foreign = try await grant(otherLogin)
        let (_, parties) = try await services()
        #expect(try await parties.introspect(foreign.accessToken) == .inactive)
    }

    @Test func aClientsTokenLivesWhileTheClientIsRegistered() async throws {
        let (_, parties) = try await services()
        let (client, secret) = try OAuthClient.register(id: "orders-api", audiences: [], now: clock.now)
        #expect(try await storage.clients.add(client))
        #expect(try await !storage.clients.add(client))
        #expect(try await parties.authenticate(clientID: "orders-api", secret: secret) == client)
        await #expect(throws: AuthError.invalidClient) { try await parties.authenticate(clientID: "orders-api", secret: secret + "x") }
        await #expect(throws: AuthError.invalidClient) { try await parties.authenticate(clientID: "unknown", secret: secret) }

        let token = try await parties.clientToken(for: client, origin: RequestOrigin())
        let answer = try await parties.introspect(token.value)
        #expect(answer.active && answer.sub == "orders-api" && answer.clientID == "orders-api" && answer.username == nil)
        #expect(answer.aud == ["orders-api"])
        #expect(storage.audit.events.map(\.kind) == [.clientTokenIssued])
        #expect(try await storage.clients.remove(id: "orders-api"))
        #expect(try await parties.introspect(token.value) == .inactive)
    }

    @Test(arguments: [
        ("", "1 to 64"), (String(repeating: "a", count: 65), "1 to 64"), ("has space", "letters, digits"), ("é", "letters, digits"),
        ("authd", "authd's own login routes"),
    ])
    func aClientIDIsChecked(id: String, message: String) throws {
        #expect {
            try OAuthClient.register(id: id, audiences: [], now: Date())
        } throws: { error in
            (error as? AuthError)?.code == .invalidRequest && (error as? AuthError)?.description.contains(message) == true
        }
    }

    @Test func aSecretIsStoredOnlyAsItsHash() throws {
        let (client, secret) = try OAuthClient.register(id: "svc.v2_x-y", audiences: ["https://a.example"], now: Date())
        #expect(client.secretHash == OpaqueToken.hash(of: secret))
        #expect(!client.secretHash.contains(secret))
        #expect(client.verifies(secret: secret) && !client.verifies(secret: ""))
        #expect(client.tokenAudiences == ["https://a.example"])
    }
}
