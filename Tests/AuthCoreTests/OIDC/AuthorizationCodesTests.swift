import AuthCore
import AuthPostgres
import AuthTestSupport
import Foundation
import Testing

/// Codes on PostgreSQL: good once, for a minute, for the client, redirect URI and PKCE
/// verifier they were given with; a replay ends the session the first use started.
@Suite struct AuthorizationCodesTests {
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"  // RFC 7636 appendix B
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    static let redirect = "http://127.0.0.1:51000/cb"

    /// A storage with a public client and a user, a code for them, and the clock.
    static func withCode(
        challenge: String? = challenge,
        _ body: @escaping @Sendable (PostgresStorage, AuthorizationCodes<PostgresStorage>, String, User, TestClock) async throws -> Void
    ) async throws {
        try await TestCluster.withStorage { storage in
            let clock = TestClock(now: Date(timeIntervalSince1970: 1_800_000_000))
            let settings = try OIDCClientSettings(redirectURIs: ["http://127.0.0.1/cb"], isPublic: challenge != nil)
            _ = try await ClientRegistry(storage: storage, clock: clock).register(id: "phone-app", audiences: [], signIn: settings)
            _ = try await ClientRegistry(storage: storage, clock: clock).register(id: "other-app", audiences: [], signIn: settings)
            let user = try await storage.users.create(username: try Username("alice"), passwordHash: "x", at: clock.now)
            var query = [
                ("response_type", "code"), ("client_id", "phone-app"), ("redirect_uri", redirect), ("scope", "openid"), ("nonce", "n-1"),
            ]
            if let challenge { query += [("code_challenge", challenge), ("code_challenge_method", "S256")] }
            let request = try await AuthorizationRequest.parse(query.map { (name: $0.0, value: $0.1) }) {
                try await storage.clients.client(id: $0)
            }
            let codes = AuthorizationCodes(storage: storage, clock: clock)
            let code = try await codes.issue(for: request, userID: user.id, authTime: clock.now, methods: ["pwd"])
            try await body(storage, codes, code, user, clock)
        }
    }

    @Test func aCodeIsRedeemedOnceWithItsVerifier() async throws {
        try await Self.withCode { storage, codes, code, user, clock in
            #expect(code.count >= 43)
            let grant = try await codes.redeem(code, clientID: "phone-app", redirectURI: Self.redirect, verifier: Self.verifier)
            #expect(grant.userID == user.id && grant.nonce == "n-1" && grant.scopes == ["openid"] && grant.methods == ["pwd"])
            #expect(grant.authTime == clock.now && grant.codeHash == OpaqueToken.hash(of: code))
            await #expect(throws: AuthError.invalidGrant) {
                try await codes.redeem(code, clientID: "phone-app", redirectURI: Self.redirect, verifier: Self.verifier)
            }
        }
    }

    @Test(
        arguments: [
            ("other-app", redirect, verifier), ("phone-app", "http://127.0.0.1:51001/cb", verifier), ("phone-app", nil, verifier),
            ("phone-app", redirect, nil), ("phone-app", redirect, "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXK"),
            ("phone-app", redirect, challenge),
        ] as [(String, String?, String?)])
    func aCodeWithAnotherBindingIsRefusedAndUsedUp(_ client: String, _ redirectURI: String?, _ verifier: String?) async throws {
        try await Self.withCode { _, codes, code, _, _ in
            await #expect(throws: AuthError.invalidGrant) {
                try await codes.redeem(code, clientID: client, redirectURI: redirectURI, verifier: verifier)
            }
            // The first try used it up: the rightful client cannot redeem it after.
            await #expect(throws: AuthError.invalidGrant) {
                try await codes.redeem(code, clientID: "phone-app", redirectURI: Self.redirect, verifier: Self.verifier)
            }
        }
    }

    @Test func aVerifierForACodeWithoutAChallengeIsADowngradeAndRefused() async throws {
        try await Self.withCode(challenge: nil) { _, codes, code, _, _ in
            await #expect(throws: AuthError.invalidGrant) {
                try await codes.redeem(code, clientID: "phone-app", redirectURI: Self.redirect, verifier: Self.verifier)
            }
        }
        try await Self.withCode(challenge: nil) { _, codes, code, _, _ in
            _ = try await codes.redeem(code, clientID: "phone-app", redirectURI: Self.redirect, verifier: nil)
        }
    }

    @Test func aCodeExpiresAfterAMinute() async throws {
        try await Self.withCode { _, codes, code, _, clock in
            clock.advance(by: AuthorizationCode.lifetime)
            await #expect(throws: AuthError.invalidGrant) {
                try await codes.redeem(code, clientID: "phone-app", redirectURI: Self.redirect, verifier: Self.verifier)
            }
        }
        await #expect(throws: AuthError.invalidGrant) {
            try await Self.withCode { _, codes, _, _, _ in
                _ = try await codes.redeem("not-a-code", clientID: "phone-app", redirectURI: Self.redirect, verifier: Self.verifier)
            }
        }
    }

    @Test func aReplayEndsTheSessionTheFirstRedemptionStarted() async throws {
        try await Self.withCode { storage, codes, code, user, clock in
            let grant = try await codes.redeem(code, clientID: "phone-app", redirectURI: Self.redirect, verifier: Self.verifier)
            let session = UUID()
            try await storage.refreshTokens.store(
                RefreshTokenRecord(
                    tokenHash: OpaqueToken.generate().hash, familyID: session, userID: user.id,
                    expiresAt: clock.now.addingTimeInterval(3600),
                    sessionExpiresAt: clock.now.addingTimeInterval(7200)))
            try await codes.attach(session: session, toCodeHash: grant.codeHash)
            #expect(try await storage.refreshTokens.isSessionLive(session, now: clock.now))
            await #expect(throws: AuthError.invalidGrant) {
                try await codes.redeem(code, clientID: "phone-app", redirectURI: Self.redirect, verifier: Self.verifier)
            }
            #expect(try await !storage.refreshTokens.isSessionLive(session, now: clock.now))
        }
    }

    /// Two redemptions at once: the statement that reads the code also marks it, so one wins.
    @Test func twoRedemptionsAtOnceGiveOneGrant() async throws {
        try await Self.withCode { _, codes, code, _, _ in
            let results = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        (try? await codes.redeem(code, clientID: "phone-app", redirectURI: Self.redirect, verifier: Self.verifier)) != nil
                    }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(results.filter { $0 }.count == 1)
        }
    }

    @Test func theVerifierIsCheckedAsRFC7636Says() {
        #expect(AuthorizationCode.verifier(Self.verifier, answers: Self.challenge))
        #expect(!AuthorizationCode.verifier(Self.challenge, answers: Self.challenge))
        #expect(!AuthorizationCode.verifier(String(repeating: "a", count: 42), answers: Self.challenge))
        #expect(!AuthorizationCode.verifier(String(repeating: "a", count: 129), answers: Self.challenge))
        #expect(!AuthorizationCode.verifier(Self.verifier + " ", answers: Self.challenge))
    }
}
