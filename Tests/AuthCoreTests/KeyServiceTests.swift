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

    /// The Ed25519 keys (access tokens') of `keys`, in their order.
    func edDSA(_ keys: [SigningKey]) -> [String] { keys.filter { $0.algorithm == .edDSA }.map(\.kid) }

    @Test func theNewestKeySignsTwoArePublishedAndOlderOnesAreDeleted() async throws {
        try await TestCluster.withStorage { storage in
            let keys = keys(storage)
            let first = try await keys.ensureKey()
            #expect(first.map(\.algorithm) == [.edDSA])
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

    /// An algorithm gets its first key when asked for; from then on it is rotated with the
    /// others, each algorithm keeping its own current and published keys.
    @Test func eachAlgorithmInUseIsRotatedAndPublishedApart() async throws {
        try await TestCluster.withStorage { storage in
            let keys = keys(storage)
            let first = try await keys.ensureKey()
            clock.advance(by: 10)
            let withRSA = try await keys.ensureKey(algorithms: [.edDSA, .rs256])
            #expect(withRSA.map(\.algorithm) == [.rs256, .edDSA] && withRSA[1] == first[0])
            #expect(try await keys.ensureKey(algorithms: [.rs256]) == withRSA)
            clock.advance(by: 10)
            let second = try await keys.rotateAll()
            #expect(second.added.map(\.algorithm) == [.edDSA, .rs256] && second.current == second.added[0])
            clock.advance(by: 10)
            let third = try await keys.rotateAll()
            #expect(Set(try await keys.published().map(\.kid)) == Set((third.added + second.added).map(\.kid)))
            let list = try await keys.list()
            #expect(list.filter { $0.key.algorithm == .rs256 }.map(\.status) == [.current, .published])
            #expect(list.filter { $0.status == .current }.map(\.key.kid).sorted() == third.added.map(\.kid).sorted())
            clock.advance(by: 10)
            let revocation = try await keys.revokeCurrent()
            #expect(Set(revocation.revokedKids) == Set(third.added.map(\.kid)))
            #expect(Set(try await keys.published().map(\.kid)) == Set((revocation.added + second.added).map(\.kid)))
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
            let lost = try await keys.ensureKey(algorithms: [.edDSA, .es256])
            clock.advance(by: 10)
            let second = try await keys.rotateAll()
            let replacement = KeyService(storage: storage, keyEncryptionKey: .generate(), clock: clock)
            clock.advance(by: 10)
            let revocation = try await replacement.revokeAll()
            #expect(Set(revocation.revokedKids) == Set((lost + second.added).map(\.kid)))
            #expect(Set(try await replacement.published().map(\.kid)) == Set(revocation.added.map(\.kid)))
            #expect(Set(revocation.added.map(\.algorithm)) == [.edDSA, .es256])
            #expect(try await storage.auditEvents().filter { $0.kind == .keyRevoked }.count == 4)
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
