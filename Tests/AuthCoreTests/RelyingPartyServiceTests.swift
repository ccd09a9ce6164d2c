import AuthCore
import AuthPostgres
import AuthTestSupport
import Foundation
import Testing

/// The relying-party rules without the routes (OAuthRoutesTests prove the routes): what
/// introspection vouches for, and a client's registration.
@Suite struct RelyingPartyServiceTests {
    let clock = TestClock(now: Date(timeIntervalSince1970: 1_800_000_000))
    let keyEncryptionKey = KeyEncryptionKey.generate()
    /// A relying party the operator trusts with every token.
    static let gateway = OAuthClient(id: "gateway", secretHash: "", audiences: [], createdAt: Date(), trustedIntrospector: true)

    func services(
        _ storage: PostgresStorage, issuerName: String = "authd"
    ) async throws -> (LoginService<PostgresStorage>, RelyingPartyService<PostgresStorage>) {
        let issuer = AccessTokenIssuer(issuer: issuerName, lifetime: 900, clock: clock)
        try issuer.install(try await KeyService(storage: storage, keyEncryptionKey: keyEncryptionKey, clock: clock).ensureKey())
        let login = try await LoginService.make(
            storage: storage, issuer: issuer,
            hashing: PasswordHashing(hasher: Argon2idHasher(parameters: .testLight), pool: BlockingWorkPool(width: 1, queueLimit: 4)),
            refreshLifetime: 3600, sessionMaxAge: 7200, clock: clock
        )
        return (login, RelyingPartyService(sessions: SessionService(storage: storage, issuer: issuer, refreshLifetime: 3600, clock: clock)))
    }

    func grant(_ login: LoginService<PostgresStorage>) async throws -> TokenGrant {
        let user = try await login.storage.users.create(username: try Username("alice"), passwordHash: "unused", at: clock.now)
        return try await login.issueGrant(for: user)
    }

    @Test func anAccessTokenIsLiveUntilItExpires() async throws {
        try await TestCluster.withStorage { storage in
            let (login, parties) = try await services(storage)
            let tokens = try await grant(login)
            #expect(try await parties.introspect(tokens.accessToken, by: Self.gateway).active)
            clock.advance(by: 901)
            #expect(try await parties.introspect(tokens.accessToken, by: Self.gateway) == .inactive)
            // The refresh token outlives it; once rotated it is used up.
            #expect(try await parties.introspect(tokens.refreshToken, by: Self.gateway).active)
            _ = try await parties.refresh(refreshToken: tokens.refreshToken, origin: RequestOrigin())
            #expect(try await parties.introspect(tokens.refreshToken, by: Self.gateway) == .inactive)
            await #expect(throws: AuthError.invalidGrant) {
                try await parties.refresh(refreshToken: tokens.refreshToken, origin: RequestOrigin())
            }
        }
    }

    @Test func anotherIssuersTokenIsNotVouchedFor() async throws {
        try await TestCluster.withStorage { storage in
            // Signed with the same key, by another issuer name.
            let (otherLogin, _) = try await services(storage, issuerName: "someone-else")
            let foreign = try await grant(otherLogin)
            let (_, parties) = try await services(storage)
            #expect(try await parties.introspect(foreign.accessToken, by: Self.gateway) == .inactive)
        }
    }

    @Test func aClientsTokenLivesWhileTheClientIsRegistered() async throws {
        try await TestCluster.withStorage { storage in
            let (_, parties) = try await services(storage)
            let (client, secret) = try OAuthClient.register(id: "orders-api", audiences: [], now: clock.now)
            #expect(try await storage.clients.add(client))
            #expect(try await !storage.clients.add(client))
            #expect(try await parties.authenticate(clientID: "orders-api", secret: secret, origin: RequestOrigin()) == client)
            await #expect(throws: AuthError.invalidClient) {
                try await parties.authenticate(clientID: "orders-api", secret: secret + "x", origin: RequestOrigin())
            }
            await #expect(throws: AuthError.invalidClient) {
                try await parties.authenticate(clientID: "unknown", secret: secret, origin: RequestOrigin())
            }

            let token = try await parties.clientToken(for: client, origin: RequestOrigin())
            let answer = try await parties.introspect(token.value, by: client)
            #expect(answer.active && answer.sub == "orders-api" && answer.clientID == "orders-api" && answer.username == nil)
            #expect(answer.aud == ["orders-api"])
            #expect(try await storage.auditEvents().map(\.kind) == [.clientTokenIssued])
            #expect(try await storage.clients.remove(id: "orders-api"))
            #expect(try await parties.introspect(token.value, by: client) == .inactive)
        }
    }

    /// RFC 7009 §2: a client's own token it revokes is inactive at introspection from then
    /// on, until it would have expired (then retention forgets the revocation); another
    /// client's revocation of it changes nothing.
    @Test func aClientsOwnTokenItRevokesIsInactive() async throws {
        try await TestCluster.withStorage { storage in
            let (_, parties) = try await services(storage)
            let (client, _) = try OAuthClient.register(id: "orders-api", audiences: [], now: clock.now)
            let (other, _) = try OAuthClient.register(id: "billing-api", audiences: [], now: clock.now)
            #expect(try await storage.clients.add(client))
            #expect(try await storage.clients.add(other))
            let token = try await parties.clientToken(for: client, origin: RequestOrigin())
            let kept = try await parties.clientToken(for: client, origin: RequestOrigin())
            try await parties.revoke(token.value, by: other, origin: RequestOrigin())
            #expect(try await parties.introspect(token.value, by: client).active, "another client's revocation")
            try await parties.revoke(token.value, by: client, origin: RequestOrigin())
            try await parties.revoke(token.value, by: client, origin: RequestOrigin())
            #expect(try await parties.introspect(token.value, by: client) == .inactive)
            #expect(try await parties.introspect(kept.value, by: client).active, "only the revoked token")
            #expect(try await storage.auditEvents().map(\.kind).filter { $0 == .clientTokenRevoked }.count == 2)
            let retention = RetentionService(storage: storage, policy: RetentionPolicy(), clock: clock)
            #expect(try await retention.run().sessionRows == 0, "kept while the token lives")
            clock.advance(by: 901)
            #expect(try await retention.run().sessionRows == 1)
        }
    }

    @Test(arguments: [
        ("", "1 to 64"), (String(repeating: "a", count: 65), "1 to 64"), ("has space", "letters, digits"), ("é", "letters, digits"),
        ("authd", "authd's own login routes"), ("8C0E3F1A-9B2D-4E5F-8A7B-6C5D4E3F2A1B", "the form of a user id"),
        ("8c0e3f1a-9b2d-4e5f-8a7b-6c5d4e3f2a1b", "the form of a user id"),
    ])
    func aClientIDIsChecked(id: String, message: String) throws {
        #expect {
            try OAuthClient.register(id: id, audiences: [], now: Date())
        } throws: { error in
            (error as? AuthError)?.code == .invalidRequest && (error as? AuthError)?.description.contains(message) == true
        }
    }

    /// A token issued to a relying party is never taken for a user's, even with a user's id
    /// as its `sub`: users and clients are told apart by `client_id`, not by the subject's shape.
    @Test func aClientsTokenNamingAUsersIDIsNotTheUsers() async throws {
        try await TestCluster.withStorage { storage in
            let (login, parties) = try await services(storage)
            let user = try await login.storage.users.create(username: try Username("alice"), passwordHash: "unused", at: clock.now)
            let (client, _) = try OAuthClient.register(id: "orders-api", audiences: [], now: clock.now)
            #expect(try await storage.clients.add(client))
            let forged = try login.issuer.issue(subject: user.id.uuidString.lowercased(), clientID: "orders-api", audiences: ["orders-api"])

            await #expect(throws: AuthError.invalidToken) { try await parties.sessions.profile(accessToken: forged.value) }
            // Introspected as the client's own token (its sub is not the client's id: inactive),
            // never with the user's name.
            #expect(try await parties.introspect(forged.value, by: Self.gateway) == .inactive)
            // The user's own token still names the user.
            let own = try await login.issueGrant(for: user)
            #expect(try await parties.sessions.profile(accessToken: own.accessToken) == user)
            #expect(try await parties.introspect(own.accessToken, by: Self.gateway).username == "alice")
        }
    }

    /// A client introspects and revokes only the tokens meant for it: those whose `aud` names
    /// one of its audiences, and its own. A user's token without an audience, and any refresh
    /// token, only a trusted introspector; to anyone else they are inactive, and revoking
    /// them changes nothing.
    @Test func introspectionAndRevocationAreForTheTokensMeantForTheClient() async throws {
        try await TestCluster.withStorage { storage in
            let (login, parties) = try await services(storage)
            let user = try await login.storage.users.create(username: try Username("alice"), passwordHash: "unused", at: clock.now)
            let orders = OAuthClient(id: "orders-api", secretHash: "", audiences: ["https://orders.example.com"], createdAt: clock.now)
            let stock = OAuthClient(id: "stock-api", secretHash: "", audiences: [], createdAt: clock.now)
            let grant = try await login.issueGrant(for: user)
            let session = try #require(try await storage.refreshTokens.sessions(ofUser: user.id, now: clock.now).first).id
            let forOrders = try login.issuer.issue(
                subject: user.id.uuidString.lowercased(), sessionID: session, audiences: ["https://orders.example.com"])

            #expect(try await parties.introspect(forOrders.value, by: orders).active)
            #expect(try await parties.introspect(forOrders.value, by: stock) == .inactive)
            #expect(try await parties.introspect(grant.accessToken, by: orders) == .inactive)
            #expect(try await parties.introspect(grant.refreshToken, by: orders) == .inactive)
            #expect(try await parties.introspect(grant.refreshToken, by: Self.gateway).active)

            for token in [grant.refreshToken, grant.accessToken, forOrders.value] {
                try await parties.revoke(token, by: stock, origin: RequestOrigin())
            }
            #expect(try await storage.refreshTokens.isSessionLive(session, now: clock.now))
            try await parties.revoke(forOrders.value, by: orders, origin: RequestOrigin())
            #expect(try await !storage.refreshTokens.isSessionLive(session, now: clock.now))
        }
    }

    /// Wrong secrets are throttled per address: a hundred from one address for one client
    /// id, then 429 there, even for the right secret. Guesses from other addresses, however
    /// many, never lock the client out where it authenticates (there is no counter of the id
    /// from every address, which a login's username has).
    @Test func wrongSecretsAreThrottledPerAddressAndCannotLockTheClientOut() async throws {
        try await TestCluster.withStorage { storage in
            let (_, parties) = try await services(storage)
            let (client, secret) = try OAuthClient.register(id: "orders-api", audiences: [], now: clock.now)
            #expect(try await storage.clients.add(client))
            let attacker = RequestOrigin(clientAddress: "203.0.113.7")
            let owner = RequestOrigin(clientAddress: "198.51.100.2")
            for _ in 0..<100 {
                await #expect(throws: AuthError.invalidClient) {
                    try await parties.authenticate(clientID: "orders-api", secret: "guess", origin: attacker)
                }
            }
            await #expect { try await parties.authenticate(clientID: "orders-api", secret: secret, origin: attacker) } throws: { error in
                (error as? AuthError)?.code == .tooManyAttempts
            }
            // Ten guesses from each of ten more addresses: a login's username would be locked out everywhere.
            for helper in 0..<10 {
                for _ in 0..<10 {
                    await #expect(throws: AuthError.invalidClient) {
                        try await parties.authenticate(
                            clientID: "orders-api", secret: "guess", origin: RequestOrigin(clientAddress: "192.0.2.\(helper)"))
                    }
                }
            }
            #expect(try await parties.authenticate(clientID: "orders-api", secret: secret, origin: owner) == client)
        }
    }

    /// A busy gateway authenticates many times at once from one address: fewer than the
    /// client limit in flight are all answered.
    @Test func manyAuthenticationsOfOneClientAtOnceAreAllAnswered() async throws {
        try await TestCluster.withStorage { storage in
            let (_, parties) = try await services(storage)
            let (client, secret) = try OAuthClient.register(id: "gateway", audiences: [], now: clock.now)
            #expect(try await storage.clients.add(client))
            let gateway = RequestOrigin(clientAddress: "198.51.100.9")
            let answered = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<32 {
                    group.addTask { try await parties.authenticate(clientID: "gateway", secret: secret, origin: gateway) == client }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(answered == 32)
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
