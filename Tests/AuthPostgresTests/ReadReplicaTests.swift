import AuthCore
import AuthPostgres
import AuthTestSupport
import Foundation
import PostgresEmbedded
import Testing

/// Reads that may be a moment old (``PostgresStorage/staleReads``) on a real streaming
/// replica: served by it while it is within its maximum lag, by the primary when it is
/// behind or away, never failing for the replica's sake.
@Suite(.serialized) struct ReadReplicaTests {
    @Test func staleReadsComeFromTheReplicaWithinItsLagAndFromThePrimaryPastItOrWithoutIt() async throws {
        let pair = try await ReplicatedCluster.start("authd-replica")
        defer { pair.remove() }
        let primary = DatabaseTarget(client: ReplicatedCluster.configuration(pair.primary))
        let replica = DatabaseTarget(client: ReplicatedCluster.configuration(pair.standby))
        let patient = PostgresStorage(
            target: primary, readReplicas: [replica], maximumLag: .seconds(3600), timeout: TestCluster.operationTimeout,
            logger: TestCluster.logger)
        let strict = PostgresStorage(
            target: primary, readReplicas: [replica], maximumLag: .milliseconds(300), timeout: TestCluster.operationTimeout,
            logger: TestCluster.logger)
        try await patient.withRunning { patient in
            try await strict.withRunning { strict in
                try await patient.migrate()
                let alice = try await patient.users.create(username: try Username("alice"), passwordHash: "$argon2id$x", at: Date())
                try await pair.waitForReplay()
                try await Polling.until("both storages have a replica to read") {
                    patient.staleReads != nil && strict.staleReads != nil
                }
                #expect(try await #require(patient.staleReads).users.user(withID: alice.id)?.isDisabled == false)

                // The replica stops replaying; the primary disables alice.
                try await ReplicatedCluster.value("SELECT pg_wal_replay_pause()::text", on: pair.standby)
                _ = try await patient.users.setDisabled(true, usernameKey: "alice", at: Date())
                #expect(try await patient.users.user(withID: alice.id)?.isDisabled == true)
                // Within an hour's lag the replica answers, as it was.
                #expect(try await #require(patient.staleReads).users.user(withID: alice.id)?.isDisabled == false)
                // Past 300 ms it is not picked, and the primary answers.
                try await Polling.until("the strict storage has no replica to read") { strict.staleReads == nil }
                #expect(try await strict.readConfirming { try await $0.users.user(withID: alice.id) }?.isDisabled == true)
                // A replica confirms, never denies: what it does not know is asked of the primary.
                let bob = try await patient.users.create(username: try Username("bob"), passwordHash: "$argon2id$y", at: Date())
                #expect(try await #require(patient.staleReads).users.user(withID: bob.id) == nil)
                #expect(try await patient.readConfirming { try await $0.users.user(withID: bob.id) }?.username == "bob")

                // Replaying again, the replica catches up and is read again.
                try await ReplicatedCluster.value("SELECT pg_wal_replay_resume()::text", on: pair.standby)
                try await pair.waitForReplay()
                #expect(try await #require(patient.staleReads).users.user(withID: alice.id)?.isDisabled == true)
                try await Polling.until("the strict storage has a replica to read again") { strict.staleReads != nil }

                // The replica goes away: every read is answered, by the primary.
                let replica = try #require(patient.staleReads)
                try await pair.stopStandby()
                for _ in 0..<20 {
                    #expect(try await replica.users.user(withID: alice.id)?.isDisabled == true)
                }
                try await Polling.until("the storage has no replica to read") { patient.staleReads == nil }
            }
        }
    }
}
