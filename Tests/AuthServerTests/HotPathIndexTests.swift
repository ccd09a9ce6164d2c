import AuthCore
import AuthPostgres
import AuthServer
import AuthTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PostgresNIO
import Testing

/// Every statement of the hot paths finds its rows through an index that selects them: with
/// sequential scans priced out (`enable_seqscan = off` for the database), PostgreSQL still
/// scans a table sequentially only where no index can serve the statement
/// (`pg_stat_user_tables.seq_scan`), and with 300 other accounts, each with a session, a
/// token and an audit event, an index that does not select (a range over every live
/// session, say) reads their rows (`idx_tup_fetch`). The paths: login (throttle reservation,
/// account lookup, the success's writes), a wrong password, `/me`, refresh rotation and a
/// replay, the session list, logout, introspection of both kinds of token, a client's
/// authentication and `authd audit --user`'s query.
@Suite struct HotPathIndexTests {
    @Test func theHotPathsScanNoTableSequentially() async throws {
        var fixture = try await ServerFixture()
        // Signing keys are read whole, at start and at each reload; neither is a request's path.
        fixture.configuration.keyReloadInterval = .seconds(3600)
        fixture.configuration.retentionInterval = .seconds(3600)
        try await fixture.addUser("hana", password: "correct horse battery staple")
        let (client, secret) = try OAuthClient.register(id: "orders-api", audiences: [], now: Date())
        let name = fixture.testDatabase.name
        try await fixture.withDatabase { database in
            _ = try await PostgresOAuthClientRepository(database: database).add(client)
            for statement: PostgresQuery in [
                """
                INSERT INTO users (id, username, username_key, password_hash, created_at)
                SELECT gen_random_uuid(), 'other' || i, 'other' || i, 'unused', now() FROM generate_series(1, 300) AS i
                """,
                """
                INSERT INTO refresh_families (id, user_id, created_at, last_used_at, expires_at)
                SELECT gen_random_uuid(), id, now(), now(), now() + interval '1 day' FROM users WHERE username_key LIKE 'other%'
                """,
                """
                INSERT INTO refresh_tokens (token_hash, family_id, user_id, expires_at)
                SELECT md5(id::text), id, user_id, now() + interval '1 day' FROM refresh_families
                """,
                "INSERT INTO audit_events (at, kind, user_id, username_key) SELECT now(), 'login_succeeded', id, username_key FROM users",
                "ANALYZE",
            ] {
                try await database.client.query(statement)
            }
            try await database.client.query(PostgresQuery(unsafeSQL: "ALTER DATABASE \"\(name)\" SET enable_seqscan = off"))
        }
        // What a start scans (the stored hashes' parameters, the keys, the migrations) is
        // measured by a start without requests, and taken off.
        let before = try await Self.sequentialScans(fixture)
        try await fixture.test { _ in }
        let started = try await Self.sequentialScans(fixture)

        try await fixture.test { client in
            let tokens = try await client.login("hana", "correct horse battery staple").json()
            #expect(try await client.login("hana", "wrong password").status == .unauthorized)
            let access = try #require(tokens["access_token"] as? String)
            let refresh = try #require(tokens["refresh_token"] as? String)
            #expect(try await client.execute(uri: "/me", method: .get, headers: [.authorization: "Bearer \(access)"]).status == .ok)
            #expect(try await client.execute(uri: "/sessions", method: .get, headers: [.authorization: "Bearer \(access)"]).status == .ok)
            #expect(try await client.form("/oauth/introspect", ["token": access], basic: ("orders-api", secret)).status == .ok)
            #expect(try await client.form("/oauth/introspect", ["token": refresh], basic: ("orders-api", secret)).status == .ok)
            let next = try await client.sendJSON(.post, "/token/refresh", ["refresh_token": refresh]).json()
            #expect(try await client.sendJSON(.post, "/token/refresh", ["refresh_token": refresh]).status == .unauthorized)
            #expect(
                try await client.sendJSON(.post, "/logout", ["refresh_token": try #require(next["refresh_token"] as? String)]).status
                    == .noContent)
        }
        let events = try await fixture.withDatabase { try await PostgresAuditLog(database: $0).recent(limit: 50, usernameKey: "hana") }
        #expect(!events.isEmpty)

        let after = try await Self.sequentialScans(fixture)
        // What the requests did: the second run's counts less a start's.
        var requests: [String: Reads] = [:]
        for (table, total) in after {
            let first = started[table, default: Reads()]
            let initial = before[table, default: Reads()]
            requests[table] = total - first - (first - initial)
        }
        let scanned = requests.filter { $0.value.sequentialScans > 0 }.keys.sorted()
        #expect(scanned.isEmpty, "tables scanned sequentially on a hot path: \(scanned)")
        let wide = requests.filter { $0.value.rowsThroughIndexes >= 100 }.mapValues(\.rowsThroughIndexes)
        #expect(wide.isEmpty, "rows of other accounts read through an index that does not select: \(wide)")
        // The start's own scan of every account was seen: the measurement counts what it should.
        #expect((started["users", default: Reads()] - before["users", default: Reads()]).sequentialScans > 0)
    }

    /// A table's counters.
    struct Reads: Sendable {
        var sequentialScans = 0
        var rowsThroughIndexes = 0

        static func - (lhs: Reads, rhs: Reads) -> Reads {
            Reads(
                sequentialScans: lhs.sequentialScans - rhs.sequentialScans,
                rowsThroughIndexes: lhs.rowsThroughIndexes - rhs.rowsThroughIndexes)
        }
    }

    /// `seq_scan` and `idx_tup_fetch` of each table of the fixture's database, once every
    /// other connection to it has gone (a backend reports its counts when it exits).
    static func sequentialScans(_ fixture: ServerFixture) async throws -> [String: Reads] {
        try await fixture.withDatabase { database in
            // Other connections' counts arrive when they exit: wait for them to be gone.
            for _ in 0..<600 {
                var others = 0
                for try await count in try await database.client.query(
                    "SELECT count(*)::int8 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
                ).decode(Int.self) {
                    others = count
                }
                if others == 0 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            var reads: [String: Reads] = [:]
            _ = try await database.client.query("SELECT pg_stat_clear_snapshot()")
            for try await (table, scans, rows) in try await database.client.query(
                "SELECT relname::text, seq_scan, coalesce(idx_tup_fetch, 0) FROM pg_stat_user_tables"
            ).decode((String, Int, Int).self) {
                reads[table] = Reads(sequentialScans: scans, rowsThroughIndexes: rows)
            }
            return reads
        }
    }
}
