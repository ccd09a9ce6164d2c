import AuthCore
import AuthPostgres
import AuthTestSupport
import Foundation
import PostgresNIO
import Testing

/// Signing keys on PostgreSQL: sealed at rest, bound to their row, sealed in place when an
/// authd before sealing left them clear, and deleted once unpublished.
@Suite struct SigningKeyRepositoryTests {
    let kek = KeyEncryptionKey.generate()

    @Test func concurrentFirstStartsCreateOneKeyOfEachAlgorithm() async throws {
        // Each start's keys are made first (an RSA key takes a while): the starts then race for
        // the table only. They take its lock one after the other, each waiting for the ones
        // before: under the whole suite's load that has taken the last past the tests' usual
        // 30 s deadline, so this database waits longer.
        let testDatabase = try await TestCluster.newMigratedDatabase()
        try await TestCluster.withDatabase(testDatabase.configuration, timeout: .seconds(300)) { [kek] database in
            let keys = PostgresSigningKeyRepository(database: database)
            let candidates = try (0..<4).map { _ in
                try SigningAlgorithm.allCases.map { try kek.seal(try SigningKey.generate(now: Date(), algorithm: $0)) }
            }
            let results = try await withThrowingTaskGroup(of: [SealedSigningKey].self) { group in
                for keysOfAStart in candidates {
                    group.addTask { try await keys.ensureSigningKeys(limit: 2, adding: keysOfAStart) }
                }
                return try await group.reduce(into: [[SealedSigningKey]]()) { $0.append($1) }
            }
            #expect(Set(results.flatMap { $0.map(\.kid) }).count == SigningAlgorithm.allCases.count)
            #expect(Set(results[0].map(\.algorithm)) == Set(SigningAlgorithm.allCases))
            #expect(try await keys.keys(limit: 2) == results[0])
        }
    }

    @Test func keepsTheNewestKeysFirstAndDeletesTheRest() async throws {
        try await TestCluster.withMigratedDatabase { [kek] database, _ in
            let keys = PostgresSigningKeyRepository(database: database)
            let sealed = try [1_000, 2_000, 3_000].map { try kek.seal(SigningKey.generate(now: Date(timeIntervalSince1970: $0))) }
            for key in sealed { try await keys.add([key], removing: [], keeping: 2) }
            #expect(try await keys.keys(limit: nil) == [sealed[2], sealed[1]])
            #expect(try await keys.keys(limit: 1) == [sealed[2]])
            // Another algorithm's keys are counted apart: an older RSA key stays.
            let rsa = try kek.seal(try SigningKey.generate(now: Date(timeIntervalSince1970: 500), algorithm: .rs256))
            try await keys.add([rsa], removing: [], keeping: 2)
            #expect(try await keys.keys(limit: 1) == [sealed[2], rsa])
            let fourth = try kek.seal(SigningKey.generate(now: Date(timeIntervalSince1970: 4_000)))
            try await keys.add([fourth], removing: [sealed[2].kid], keeping: 2)
            #expect(try await keys.keys(limit: nil) == [fourth, sealed[1], rsa])
        }
    }

    /// A database from before sealing: its clear rows are sealed by the first start with a
    /// KEK, and no clear seed is left in any column of `signing_keys`.
    @Test func clearKeysFromBeforeAreSealedAtStartAndLeaveNoSeed() async throws {
        let testDatabase = try await TestCluster.newDatabase()
        let legacy = (1...3).map { SigningKey.generate(now: Date(timeIntervalSince1970: 1_800_000_000 + Double($0))) }
        try await TestCluster.withDatabase(testDatabase.configuration) { database in
            try await MigrationRunner(database: database, migrations: Migration.all.filter { $0.version < "0010" }).migrate()
            for key in legacy { try await database.storeClearSigningKey(key) }
        }
        try await withStorage(testDatabase) { [kek] storage in
            try await storage.migrate()
            let published = try await KeyService(storage: storage, keyEncryptionKey: kek).ensureKey()
            #expect(published == [legacy[2], legacy[1]])
            let rows = try await Self.rows(storage.database)
            #expect(rows.count == 2)
            for row in rows {
                #expect(!row.contains(legacy[2].kid) || row.contains(kek.fingerprint))
                for key in legacy {
                    #expect(!row.contains(key.privateKey.map { String(format: "%02x", $0) }.joined()), "a clear seed is left: \(key.kid)")
                    #expect(!row.contains(key.privateKey.base64EncodedString()))
                }
            }
            #expect(try await storage.signingKeys.clearKeys().isEmpty)
            // Nor in the table's file: the superseded row versions were vacuumed away. A VACUUM
            // keeps what a transaction still running elsewhere in the cluster may see (under the
            // whole suite's load, a connection starting up, before it has a database, counts
            // for every database): it is run again, as the next start or autovacuum would, until
            // that transaction is over.
            var file = try await Self.tableFile(storage.database)
            for _ in 0..<50 where legacy.contains(where: { file.range(of: $0.privateKey) != nil }) {
                try await Task.sleep(for: .milliseconds(100))
                try await storage.signingKeys.purgeClearCopies()
                file = try await Self.tableFile(storage.database)
            }
            for key in legacy {
                #expect(file.range(of: key.privateKey) == nil, "the table's file holds a clear seed: \(key.kid)")
            }
        }
    }

    /// The kid is AES-GCM's authenticated data: a sealed key copied into another row (by
    /// whoever can write the table) does not open there.
    @Test func aSealedKeyCopiedToAnotherRowDoesNotOpen() async throws {
        let testDatabase = try await TestCluster.newDatabase()
        try await withStorage(testDatabase) { [kek] storage in
            try await storage.migrate()
            let keys = KeyService(storage: storage, keyEncryptionKey: kek)
            let first = try await keys.ensureKey()[0]
            let second = try await keys.rotate()
            try await storage.database.client.query(
                """
                UPDATE signing_keys SET sealed_private_key = (SELECT sealed_private_key FROM signing_keys WHERE kid = \(first.kid))
                WHERE kid = \(second.kid)
                """,
                logger: TestCluster.logger
            )
            let error = try await #require(throws: SealingError.self) { try await keys.published() }
            #expect(!error.isWrongKey && "\(error)".contains(second.kid))
        }
    }

    @Test func aRevokedKeyAndRetiredKeysAreDeletedAndAudited() async throws {
        let testDatabase = try await TestCluster.newDatabase()
        try await withStorage(testDatabase) { [kek] storage in
            try await storage.migrate()
            let clock = TestClock(now: Date(timeIntervalSince1970: 1_800_000_000))
            let keys = KeyService(storage: storage, keyEncryptionKey: kek, clock: clock)
            let first = try await keys.ensureKey()[0]
            clock.advance(by: 10)
            let second = try await keys.rotate()
            clock.advance(by: 10)
            let third = try await keys.rotate()
            #expect(try await keys.list().map(\.key.kid) == [third.kid, second.kid])
            clock.advance(by: 10)
            let revocation = try await keys.revokeCurrent()
            #expect(revocation.revokedKids == [third.kid])
            #expect(try await keys.list().map(\.key.kid) == [revocation.current.kid, second.kid])
            let rows = try await Self.rows(storage.database)
            #expect(rows.count == 2 && !rows.contains { $0.contains(first.kid) || $0.contains(third.kid) })
            let events = try await storage.audit.recent(limit: 10, usernameKey: nil)
            #expect(events.contains { $0.kind == .keyRevoked && $0.detail == third.kid })
        }
    }

    private func withStorage(_ database: TestCluster.TestDatabase, _ body: @Sendable (PostgresStorage) async throws -> Void) async throws {
        try await PostgresStorage(configuration: database.configuration, timeout: TestCluster.operationTimeout, logger: TestCluster.logger)
            .withRunning(body)
    }

    /// The bytes of `signing_keys`'s heap file, written out by a checkpoint first.
    private static func tableFile(_ database: Database) async throws -> Data {
        _ = try await database.client.query("CHECKPOINT", logger: TestCluster.logger)
        var path = ""
        for try await relative in try await database.client.query("SELECT pg_relation_filepath('signing_keys')", logger: TestCluster.logger)
            .decode(String.self)
        {
            path = relative
        }
        return try Data(contentsOf: URL(fileURLWithPath: try TestCluster.shared().dataDirectory).appendingPathComponent(path))
    }

    /// Every row of `signing_keys` as PostgreSQL prints it (bytea as hex).
    private static func rows(_ database: Database) async throws -> [String] {
        var rows: [String] = []
        for try await row in try await database.client.query("SELECT t::text FROM signing_keys t", logger: TestCluster.logger).decode(
            String.self)
        {
            rows.append(row)
        }
        return rows
    }
}
