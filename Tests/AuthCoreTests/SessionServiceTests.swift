import AuthCore
import AuthTestSupport
import Foundation
import Testing

/// The session rules on in-memory storage; SessionTests prove the same on PostgreSQL.
@Suite struct SessionServiceTests {
    let storage: InMemoryStorage
    let clock = TestClock(now: Date(timeIntervalSince1970: 1_800_000_000))
    let origin = RequestOrigin(clientAddress: "192.0.2.1", requestID: "r1")

    init() {
        storage = InMemoryStorage()
    }

    func services() async throws -> (LoginService<InMemoryStorage>, SessionService<InMemoryStorage>) {
        let issuer = AccessTokenIssuer(issuer: "authd", lifetime: 900, clock: clock)
        try await issuer.install(try await KeyService(storage: storage, clock: clock).ensureKey())
        let login = try await LoginService.make(
            storage: storage, issuer: issuer,
            hashing: PasswordHashing(hasher: Argon2idHasher(parameters: .testLight), pool: BlockingWorkPool(width: 1, queueLimit: 4)),
            refreshLifetime: 60, clock: clock
        )
        return (login, SessionService(storage: storage, issuer: issuer, refreshLifetime: 60, clock: clock))
    }

    func grant(_ login: LoginService<InMemoryStorage>) async throws -> TokenGrant {
        let phc = try Argon2idHasher(parameters: .testLight).hash("correct horse battery staple")
        let user = try await storage.users.create(username: try Username("alice"), passwordHash: phc, at: clock.now)
        return try await login.issueGrant(for: user)
    }

    @Test func rotationReuseAndTheAuditLog() async throws {
        let (login, sessions) = try await services()
        let first = try await grant(login)
        let second = try await sessions.refresh(refreshToken: first.refreshToken, origin: origin)
        #expect(second.refreshToken != first.refreshToken)
        #expect(second.refreshExpiresIn == 60)
        await #expect(throws: AuthError.invalidToken) { try await sessions.refresh(refreshToken: first.refreshToken, origin: origin) }
        await #expect(throws: AuthError.invalidToken) { try await sessions.refresh(refreshToken: second.refreshToken, origin: origin) }
        #expect(storage.audit.events.map(\.kind) == [.tokenRefreshed, .refreshReuseDetected])
        #expect(storage.audit.events.allSatisfy { $0.origin == origin })
    }

    @Test func expiryLogoutAndDisabledAccounts() async throws {
        let (login, sessions) = try await services()
        let first = try await grant(login)
        clock.advance(by: 61)
        await #expect(throws: AuthError.invalidToken) { try await sessions.refresh(refreshToken: first.refreshToken, origin: origin) }

        let user = try #require(try await storage.users.user(withKey: "alice"))
        let second = try await login.issueGrant(for: user)
        try await sessions.logout(refreshToken: second.refreshToken, origin: origin)
        try await sessions.logout(refreshToken: second.refreshToken, origin: origin)
        try await sessions.logout(refreshToken: "unknown", origin: origin)
        await #expect(throws: AuthError.invalidToken) { try await sessions.refresh(refreshToken: second.refreshToken, origin: origin) }
        await #expect(throws: AuthError.invalidRequest("refresh_token must not be empty")) { try await sessions.logout(refreshToken: "", origin: origin) }

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
