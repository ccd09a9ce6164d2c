import AuthCore
import AuthPostgres
import AuthTestSupport
import Foundation
import Testing

/// The signing-key rules, through the service; `SigningKeyRepositoryTests` check what
/// PostgreSQL keeps of them (sealed rows, no clear seed left).
@Suite struct KeyServiceTests {
    let clock = TestClock(now: Date(timeIntervalSince1970: 1_800_000_000))
    let kek = KeyEncryptionKey.generate()

    func keys(_ storage: PostgresStorage) -> KeyService<PostgresStorage> {
        KeyService(storage: storage, keyEncryptionKey: kek, clock: clock)
    }

    @Test func theNewestKeySignsTwoArePublishedAndOlderOnesAreDeleted() async throws {
        try await TestCluster.withStorage { storage in
            let keys = keys(storage)
            let first = try await keys.ensureKey()
            #expect(first.count == 1)
            #expect(try await keys.ensureKey() == first)
            clock.advance(by: 10)
            let second = try await keys.rotate()
            #expect(second.createdAt == clock.now)
            clock.advance(by: 10)
            let third = try await keys.rotate()
            #expect(try await keys.published().map(\.kid) == [third.kid, second.kid])
            #expect(try await keys.list().map(\.status) == [.current, .published])
            #expect(try await storage.signingKeys.keys(limit: nil).map(\.kid) == [third.kid, second.kid])
            let events = try await storage.auditEvents()
            #expect(events.map(\.kind) == [.keyRotated, .keyRotated])
            #expect(events.map(\.detail) == [second.kid, third.kid])
        }
    }

    @Test func revokingTheCurrentKeyUnpublishesItAtOnce() async throws {
        try await TestCluster.withStorage { storage in
            let keys = keys(storage)
            let first = try await keys.ensureKey()[0]
            clock.advance(by: 10)
            let leaked = try await keys.rotate()
            let issuer = AccessTokenIssuer(issuer: "authd", lifetime: 900, clock: clock)
            try issuer.install(try await keys.published())
            let token = try issuer.issue(subject: "alice").value
            #expect(try issuer.verify(token).sub == "alice")

            clock.advance(by: 10)
            let revocation = try await keys.revokeCurrent(origin: RequestOrigin(requestID: "cli"))
            #expect(revocation.revokedKids == [leaked.kid])
            #expect(try await keys.published().map(\.kid) == [revocation.current.kid, first.kid])
            #expect(try await storage.signingKeys.keys(limit: nil).map(\.kid) == [revocation.current.kid, first.kid])
            try issuer.install(try await keys.published())
            #expect(throws: AuthError.invalidToken) { try issuer.verify(token) }
            let revoked = try #require(try await storage.auditEvents().last)
            #expect(revoked.kind == .keyRevoked && revoked.detail == leaked.kid && revoked.origin.requestID == "cli")
        }
    }

    @Test func aWrongKEKIsRefusedBeforeItAddsAKey() async throws {
        try await TestCluster.withStorage { storage in
            let keys = keys(storage)
            _ = try await keys.ensureKey()
            let other = KeyService(storage: storage, keyEncryptionKey: .generate(), clock: clock)
            let error = try await #require(throws: SealingError.self) { try await other.rotate() }
            #expect(error.isWrongKey && "\(error)".contains(kek.fingerprint))
            await #expect(throws: SealingError.self) { try await other.revokeCurrent() }
            // A key left in clear is not sealed under the wrong KEK either.
            let legacy = SigningKey.generate(now: clock.now)
            try await storage.database.storeClearSigningKey(legacy)
            await #expect(throws: SealingError.self) { try await other.list() }
            await #expect(throws: SealingError.self) { try await other.ensureKey() }
            #expect(try await storage.signingKeys.clearKeys() == [legacy])
            #expect(try await storage.signingKeys.keys(limit: nil).count == 1)
            #expect(try await storage.auditEvents().isEmpty)
        }
    }

    @Test func revokingEveryKeyReplacesKeysOfALostKEK() async throws {
        try await TestCluster.withStorage { storage in
            let keys = keys(storage)
            let lost = try await keys.ensureKey()[0]
            clock.advance(by: 10)
            let second = try await keys.rotate()
            let replacement = KeyService(storage: storage, keyEncryptionKey: .generate(), clock: clock)
            clock.advance(by: 10)
            let revocation = try await replacement.revokeAll()
            #expect(Set(revocation.revokedKids) == [lost.kid, second.kid])
            #expect(try await replacement.published().map(\.kid) == [revocation.current.kid])
            #expect(try await storage.auditEvents().filter { $0.kind == .keyRevoked }.count == 2)
        }
    }

    @Test func aKeyStoredInClearIsSealedAtStart() async throws {
        try await TestCluster.withStorage { storage in
            let keys = keys(storage)
            let legacy = SigningKey.generate(now: clock.now)
            try await storage.database.storeClearSigningKey(legacy)
            #expect(try await keys.ensureKey() == [legacy])
            #expect(try await storage.signingKeys.clearKeys().isEmpty)
            #expect(try await storage.signingKeys.keys(limit: nil).map(\.keyEncryptionKeyFingerprint) == [kek.fingerprint])
        }
    }
}
