import AuthCore
import AuthPostgres
import AuthTestSupport
import Foundation
import PostgresNIO
import Testing

/// What a rotation costs PostgreSQL grows with the depth of the B-trees it descends, so it
/// descends as few as it can: the token's index twice (the unlocked read that finds its
/// session, and the read under the session's lock) and the session's key twice (its lock,
/// and the successor's foreign-key check). The token's and the session's updates go to the
/// rows they have locked by their address, through no index (migration 0018; before it,
/// three descents of each).
@Suite struct RotationIndexTests {
    @Test func aRotationDescendsTheTokensIndexTwiceAndTheSessionsKeyTwice() async throws {
        try await TestCluster.withMigratedDatabase { database, _ in
            let tokens = PostgresRefreshTokenRepository(database: database)
            let (ivy, record) = try await createAccount("ivy", withRefreshToken: "i1", in: database)
            // Whole seconds, so that what PostgreSQL stores (microseconds) compares equal.
            let at = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            try await database.client.withConnection { connection in
                // The counts of this connection not yet reported (pg_stat_xact_*), read
                // before and after the rotation in one transaction, so that nothing else is
                // counted; with sequential scans priced out, as a table of millions of rows
                // prices them, so that a tiny table's plan is an index's too.
                _ = try await connection.query("BEGIN", logger: TestCluster.logger)
                _ = try await connection.query("SET LOCAL enable_seqscan = off", logger: TestCluster.logger)
                let before = try await Self.scans(connection)
                var outcome = ""
                for try await row in try await connection.query(
                    "SELECT outcome FROM rotate_refresh_token('i1', 'i2', \(at.addingTimeInterval(60)), \(at), NULL)",
                    logger: TestCluster.logger
                ).decode(String.self) {
                    outcome = row
                }
                let after = try await Self.scans(connection)
                _ = try await connection.query("COMMIT", logger: TestCluster.logger)
                #expect(outcome == "rotated")
                for table in ["refresh_tokens", "refresh_families"] {
                    let sequential = after[table, default: (0, 0)].sequential - before[table, default: (0, 0)].sequential
                    let index = after[table, default: (0, 0)].index - before[table, default: (0, 0)].index
                    #expect(index == 2 && sequential == 0, "\(table): \(index) index scans, \(sequential) sequential")
                }
            }
            // The updates by address changed the rows they should: the presented token is used,
            // its successor current, the session stamped.
            var rows: [String] = []
            for try await (hash, used) in try await database.client.query(
                "SELECT token_hash, used_at FROM refresh_tokens ORDER BY token_hash", logger: TestCluster.logger
            ).decode((String, Date?).self) {
                rows.append("\(hash) \(used == at ? "used" : used == nil ? "current" : "other")")
            }
            #expect(rows == ["i1 used", "i2 current"])
            for try await lastUsed in try await database.client.query(
                "SELECT last_used_at FROM refresh_families WHERE id = \(record.familyID)", logger: TestCluster.logger
            ).decode(Date.self) {
                #expect(lastUsed == at)
            }
            // The used token replayed is reuse, as before.
            let replay = RefreshSuccessor(tokenHash: "i3", expiresAt: at.addingTimeInterval(60))
            #expect(try await tokens.rotate(presentedHash: "i1", successor: replay, now: at) == .reused(userID: ivy.id))
        }
    }

    /// Each table's sequential and index scans counted by `connection` and not yet reported.
    static func scans(_ connection: PostgresConnection) async throws -> [String: (sequential: Int, index: Int)] {
        var scans: [String: (sequential: Int, index: Int)] = [:]
        for try await (table, sequential, index) in try await connection.query(
            "SELECT relname::text, seq_scan, coalesce(idx_scan, 0) FROM pg_stat_xact_user_tables", logger: TestCluster.logger
        ).decode((String, Int, Int).self) {
            scans[table] = (sequential, index)
        }
        return scans
    }
}
