import AuthCore
import AuthPostgres
import AuthTestSupport
import Foundation
import Testing

/// The session rules without the routes; SessionTests prove the same through them.
@Suite struct SessionServiceTests {
    let clock = TestClock(now: Date(timeIntervalSince1970: 1_800_000_000))
    let origin = RequestOrigin(clientAddress: "192.0.2.1", requestID: "r1")

    func services(_ storage: PostgresStorage) async throws -> (LoginService<PostgresStorage>, SessionService<PostgresStorage>) {
        let issuer = AccessTokenIssuer(issuer: "authd", lifetime: 900, clock: clock)
        try issuer.install(try await KeyService(storage: storage, keyEncryptionKey: .generate(), clock: clock).ensureKey())
        let login = try await LoginService.make(
            storage: storage, issuer: issuer,
            hashing: PasswordHashing(hasher: Argon2idHasher(parameters: .testLight), pool: BlockingWorkPool(width: 1, queueLimit: 4)),
            refreshLifetime: 60, sessionMaxAge: 150, clock: clock
        )
        return (login, SessionService(storage: storage, issuer: issuer, refreshLifetime: 60, clock: clock))
    }

    func grant(_ login: LoginService<PostgresStorage>) async throws -> TokenGrant {
        let phc = try Argon2idHasher(parameters: .testLight).hash("correct horse battery staple")
        let user = try await login.storage.users.create(username: try Username("alice"), passwordHash: phc, at: clock.now)
        return try await login.issueGrant(for: user)
    }

    @Test func rotationReuseAndTheAuditLog() async throws {
        try await TestCluster.withStorage { storage in
            let (login, sessions) = try await services(storage)
            let first = try await grant(login)
            let second = try await sessions.refresh(refreshToken: first.refreshToken, origin: origin)
            #expect(second.refreshToken != first.refreshToken)
            #expect(second.refreshExpiresIn == 60)
            await #expect(throws: AuthError.invalidToken) { try await sessions.refresh(refreshToken: first.refreshToken, origin: origin) }
            await #expect(throws: AuthError.invalidToken) { try await sessions.refresh(refreshToken: second.refreshToken, origin: origin) }
            let events = try await storage.auditEvents()
            #expect(events.map(\.kind) == [.tokenRefreshed, .refreshReuseDetected])
            #expect(events.allSatisfy { $0.origin == origin })
        }
    }

    @Test func expiryLogoutAndDisabledAccounts() async throws {
        try await TestCluster.withStorage { storage in
            let (login, sessions) = try await services(storage)
            let first = try await grant(login)
            clock.advance(by: 61)
            await #expect(throws: AuthError.invalidToken) { try await sessions.refresh(refreshToken: first.refreshToken, origin: origin) }

            let user = try #require(try await storage.users.user(withKey: "alice"))
            let second = try await login.issueGrant(for: user)
            try await sessions.logout(refreshToken: second.refreshToken, origin: origin)
            try await sessions.logout(refreshToken: second.refreshToken, origin: origin)
            try await sessions.logout(refreshToken: "unknown", origin: origin)
            await #expect(throws: AuthError.invalidToken) { try await sessions.refresh(refreshToken: second.refreshToken, origin: origin) }
            await #expect(throws: AuthError.invalidRequest("refresh_token must not be empty")) {
                try await sessions.logout(refreshToken: "", origin: origin)
            }

            let third = try await login.issueGrant(for: user)
            #expect(try await sessions.profile(accessToken: third.accessToken) == user)
            _ = try await storage.users.setDisabled(true, usernameKey: "alice", at: clock.now)
            await #expect(throws: AuthError.invalidToken) { try await sessions.refresh(refreshToken: third.refreshToken, origin: origin) }
            await #expect(throws: AuthError.invalidToken) { try await sessions.profile(accessToken: third.accessToken) }
            // Disabled is not a reuse: enabling the account again lets the token work.
            _ = try await storage.users.setDisabled(false, usernameKey: "alice", at: clock.now)
            #expect(try await sessions.refresh(refreshToken: third.refreshToken, origin: origin).tokenType == "Bearer")
        }
    }

    @Test func aSessionEndsAtItsMaxAgeHoweverOftenRotated() async throws {
        try await TestCluster.withStorage { storage in
            let (login, sessions) = try await services(storage)
            var grant = try await grant(login)
            #expect(grant.refreshExpiresIn == 60)
            clock.advance(by: 50)
            grant = try await sessions.refresh(refreshToken: grant.refreshToken, origin: origin)
            #expect(grant.refreshExpiresIn == 60)
            clock.advance(by: 50)
            // 100 s into a 150 s session: the successor lives until the session's end only.
            grant = try await sessions.refresh(refreshToken: grant.refreshToken, origin: origin)
            #expect(grant.refreshExpiresIn == 50)
            clock.advance(by: 51)
            await #expect(throws: AuthError.invalidToken) { try await sessions.refresh(refreshToken: grant.refreshToken, origin: origin) }
        }
    }

    @Test func anOperatorEndsEverySessionOfAnAccountAndAPasswordResetDoesToo() async throws {
        try await TestCluster.withStorage { storage in
            let (login, sessions) = try await services(storage)
            let accounts = AccountService(
                storage: storage,
                hashing: PasswordHashing(hasher: Argon2idHasher(parameters: .testLight), pool: BlockingWorkPool(width: 1, queueLimit: 4)),
                clock: clock
            )
            let first = try await grant(login)
            let user = try #require(try await storage.users.user(withKey: "alice"))
            let second = try await sessions.refresh(refreshToken: try await login.issueGrant(for: user).refreshToken, origin: origin)
            let bob = try await accounts.create(username: "bob", password: "correct horse battery staple")
            let bobs = try await login.issueGrant(for: bob)

            let (_, revoked) = try await accounts.revokeSessions(username: "alice", origin: origin)
            #expect(revoked == 2)
            for token in [first.refreshToken, second.refreshToken] {
                await #expect(throws: AuthError.invalidToken) { try await sessions.refresh(refreshToken: token, origin: origin) }
            }
            let revocation = try await storage.auditEvents().last
            #expect(revocation?.kind == .sessionsRevoked)
            #expect(revocation?.detail == "by an operator: 2 sessions")
            #expect(try await accounts.revokeSessions(username: "alice").revoked == 0)
            await #expect(throws: AuthError.notFound("no user named 'carol'")) { try await accounts.revokeSessions(username: "carol") }

            // A stolen session survives neither a reset nor its rotations before the reset.
            let stolen = try await sessions.refresh(refreshToken: try await login.issueGrant(for: user).refreshToken, origin: origin)
            try await accounts.setPassword(username: "alice", password: "a new passphrase here", origin: origin)
            await #expect(throws: AuthError.invalidToken) { try await sessions.refresh(refreshToken: stolen.refreshToken, origin: origin) }
            let events = try await storage.auditEvents()
            #expect(events.suffix(2).map(\.kind) == [.passwordSet, .sessionsRevoked])
            #expect(events.last?.detail == "password set: 1 session")
            // Another account's session is untouched.
            #expect(try await sessions.refresh(refreshToken: bobs.refreshToken, origin: origin).tokenType == "Bearer")
        }
    }
}

@Suite struct SessionDetailsTests {
    /// What is kept of a User-Agent cannot rewrite a terminal or a page: control, format
    /// and separator characters go, and at most 256 characters stay.
    @Test func aUserAgentIsKeptBounded() {
        #expect(Session.bounded("Phone\u{7}/1.0\u{202E}\u{200B}") == "Phone/1.0")
        #expect(Session.bounded(String(repeating: "x", count: 1_000)).count == 256)
        let record = RefreshTokenRecord(
            tokenHash: "h", familyID: UUID(), userID: UUID(), expiresAt: Date(), sessionExpiresAt: Date(),
            origin: RequestOrigin(clientAddress: "192.0.2.1", userAgent: "A\u{0}B")
        )
        #expect(record.userAgent == "AB")
        #expect(record.clientAddress == "192.0.2.1")
    }
}
