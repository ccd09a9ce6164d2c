import Foundation
import PostgresEmbedded
import PostgresNIO
import ProcessKit

/// A throwaway primary and a streaming replica of it (`pg_basebackup -R`), each an
/// ``PostgresEmbedded/EmbeddedPostgres`` in one temporary folder: what the tests of read
/// replicas and failover run on. The primary holds the database `authd`, empty, made
/// before the copy.
///
/// ```swift
/// let pair = try await ReplicatedCluster.start("authd-replica")
/// defer { pair.remove() }
/// let url = "postgresql://authd@/authd?host=\(pair.primary.socketDirectory),\(pair.standby.socketDirectory)"
/// ```
public struct ReplicatedCluster: Sendable {
    /// The primary, running.
    public let primary: EmbeddedPostgres
    /// The replica, running as a hot standby of ``primary``.
    public let standby: EmbeddedPostgres
    private let folder: TemporaryFolder

    /// Starts both, on a thread of their own (`initdb`, `pg_basebackup` and `pg_ctl` block
    /// for seconds).
    public static func start(_ prefix: String) async throws -> ReplicatedCluster {
        let folder = try TemporaryFolder.forCluster(prefix)
        do {
            let primary = try await OwnThread.run {
                let primary = try EmbeddedPostgres(directory: folder.appending("primary"), durable: false)
                try primary.start()
                return primary
            }
            try await primary.createDatabase("authd", logger: TestCluster.logger)
            let standby = try await OwnThread.run {
                let standby = try primary.standby(in: folder.appending("standby"))
                try standby.start()
                return standby
            }
            return ReplicatedCluster(primary: primary, standby: standby, folder: folder)
        } catch {
            folder.remove()
            throw error
        }
    }

    /// How the pool reaches `authd` on `cluster`.
    public static func configuration(_ cluster: EmbeddedPostgres) -> PostgresClient.Configuration {
        var configuration = cluster.configuration(database: "authd")
        configuration.options.connectTimeout = .seconds(60)
        return configuration
    }

    /// `authd` on the primary, for a ``TestCluster/TestDatabase``'s users.
    public var primaryDatabase: TestCluster.TestDatabase {
        TestCluster.TestDatabase(name: "authd", configuration: Self.configuration(primary), url: primary.url(database: "authd"))
    }

    /// Runs `sql` on `authd` on `cluster`, on a connection of its own, and returns its one
    /// text value.
    @discardableResult
    public static func value(_ sql: String, on cluster: EmbeddedPostgres) async throws -> String? {
        var configuration = PostgresConnection.Configuration(
            unixSocketPath: cluster.socketPath, username: cluster.user, password: nil, database: "authd")
        configuration.options.connectTimeout = .seconds(60)
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: TestCluster.logger)
        do {
            var value: String?
            for try await text in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: TestCluster.logger).decode(String?.self)
            {
                value = text
            }
            try? await connection.close()
            return value
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Returns once the standby has replayed all the primary has written so far (its WAL's
    /// insert position: with `synchronous_commit` off, a commit may not be written out yet).
    public func waitForReplay() async throws {
        let position = try await Self.value("SELECT pg_current_wal_insert_lsn()::text", on: primary) ?? "0/0"
        try await Polling.until("the standby replays up to \(position)", every: .milliseconds(20), within: TestCluster.operationTimeout) {
            try await Self.value("SELECT (pg_last_wal_replay_lsn() >= '\(position)'::pg_lsn)::text", on: standby) == "true"
        }
    }

    /// Stops the standby (a replica that went away).
    public func stopStandby() async throws {
        try await OwnThread.run { try standby.forceStop() }
    }

    /// A switchover: the primary stops (fast: open transactions are rolled back, and all
    /// it committed reaches the standby first), then the standby is promoted and takes
    /// writes. Returns when it does.
    public func switchOver() async throws {
        try await OwnThread.run {
            try primary.forceStop()
            try standby.promote()
        }
    }

    /// Stops both servers, whoever started them, and removes the folder.
    public func remove() {
        try? standby.forceStop()
        try? primary.forceStop()
        folder.remove()
    }
}
