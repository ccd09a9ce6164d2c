import AuthCore
import AuthPostgres
import AuthServer
import AuthTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// The routes on a primary and a real streaming replica (`--database-read-url`): those that
/// only show (`GET /me`, `GET /sessions`, `/userinfo`, access-token introspection) read the
/// replica, which may confirm but never deny; every write, and each read that decides one,
/// uses the primary.
@Suite struct ReadReplicaRoutesTests {
    static let password = AuthorizationCodeFlowTests.password

    @Test func routesThatOnlyShowReadTheReplicaAndRoutesThatWriteThePrimary() async throws {
        let pair = try await ReplicatedCluster.start("authd-replica-routes")
        defer { pair.remove() }
        _ = try await TestCluster.withDatabase(pair.primaryDatabase.configuration) { try await MigrationRunner(database: $0).migrate() }
        var fixture = try await ServerFixture(database: pair.primaryDatabase)
        fixture.readReplicas = [ReplicatedCluster.configuration(pair.standby)]
        fixture.maximumReadLag = .seconds(3600)
        fixture = try await AuthorizationCodeFlowTests.registered(fixture)
        let (introspector, secret) = try OAuthClient.register(id: "orders-api", audiences: [], trustedIntrospector: true, now: Date())
        _ = try await fixture.withDatabase { try await PostgresOAuthClientRepository(database: $0).add(introspector) }

        try await fixture.test { client in
            var browser = AuthorizationCodeFlowTests.Browser()
            let oidc = try #require(try await AuthorizationCodeFlowTests.signedInTokens(client, &browser)["access_token"] as? String)
            let tokens = try await client.login("alice", Self.password).json()
            let access = try #require(tokens["access_token"] as? String)
            let refresh = try #require(tokens["refresh_token"] as? String)
            try await pair.waitForReplay()
            try await Polling.until("the replica is within its lag") {
                String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
                    .contains(#/authd_database_replica_lag_seconds\{replica="[^"]+"\} 0(\.\d+)?(e-\d+)?\n/#)
            }

            // The replica stops replaying; on the primary, alice ends all her sessions.
            try await ReplicatedCluster.value("SELECT pg_wal_replay_pause()::text", on: pair.standby)
            let ended = try await client.execute(
                uri: "/sessions?all=true", method: .delete, headers: [.authorization: "Bearer \(access)"])
            #expect(ended.status == .noContent)

            // What only shows reads the replica, where the sessions are live still.
            #expect(try await client.execute(uri: "/me", method: .get, headers: [.authorization: "Bearer \(access)"]).status == .ok)
            #expect(try await client.execute(uri: "/sessions", method: .get, headers: [.authorization: "Bearer \(access)"]).status == .ok)
            #expect(try await client.execute(uri: "/userinfo", method: .get, headers: [.authorization: "Bearer \(oidc)"]).status == .ok)
            #expect(
                try await client.form("/oauth/introspect", ["token": access], basic: ("orders-api", secret)).json()["active"] as? Bool
                    == true)

            // What writes, or decides a write, reads the primary, where they are not.
            let again = try await client.execute(uri: "/sessions", method: .delete, headers: [.authorization: "Bearer \(access)"])
            #expect(again.status == .unauthorized)
            #expect(try await client.postJSON("/token/refresh", #"{"refresh_token": "\#(refresh)"}"#).status == .unauthorized)

            // A session the replica has not seen yet is confirmed on the primary: a fresh
            // login's token works at once.
            let fresh = try #require(try await client.login("alice", Self.password).json()["access_token"] as? String)
            let me = try await client.execute(uri: "/me", method: .get, headers: [.authorization: "Bearer \(fresh)"])
            #expect(me.status == .ok)
            #expect(
                try await client.form("/oauth/introspect", ["token": fresh], basic: ("orders-api", secret)).json()["active"] as? Bool
                    == true)
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(metrics.contains(#/authd_database_replica_reads_total\{served_by="replica"\} [1-9]/#))

            // Replaying again, the replica shows the ended sessions as ended.
            try await ReplicatedCluster.value("SELECT pg_wal_replay_resume()::text", on: pair.standby)
            try await pair.waitForReplay()
            #expect(
                try await client.execute(uri: "/userinfo", method: .get, headers: [.authorization: "Bearer \(oidc)"]).status
                    == .unauthorized)
            #expect(
                try await client.form("/oauth/introspect", ["token": access], basic: ("orders-api", secret)).json()["active"] as? Bool
                    == false)
            // GET /me keeps an account it read for a second (RecentAccounts).
            try await Polling.until("GET /me refuses the ended session") {
                try await client.execute(uri: "/me", method: .get, headers: [.authorization: "Bearer \(access)"]).status == .unauthorized
            }
        }
    }
}
