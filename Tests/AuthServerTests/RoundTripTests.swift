import AuthCore
import AuthPostgres
import AuthServer
import AuthTestSupport
import Foundation
import HummingbirdTesting
import Testing

/// What each request costs in database operations (round trips): the storage's statements
/// are composed, not repeated, so a login stays one statement before the hash and one after, and a refresh one.
@Suite struct RoundTripTests {
    @Test func loginRefreshAndLogoutCostTwoOneAndTwo() async throws {
        var fixture = try await ServerFixture()
        fixture.configuration.keyReloadInterval = .seconds(3600)
        // No periodic work of its own between the requests counted.
        fixture.configuration.providerRevocationInterval = .seconds(3600)
        fixture.configuration.retentionInterval = .seconds(3600)
        try await fixture.addUser("alice", password: "correct horse battery staple")
        let storage = PostgresStorage(
            configuration: fixture.testDatabase.configuration, timeout: TestCluster.operationTimeout, logger: TestCluster.logger)
        let app = try await buildApplication(
            configuration: fixture.configuration, storage: storage, keyEncryptionKey: fixture.keyEncryptionKey)
        try await app.test(.router) { client async throws in
            let database = storage.database
            var before = database.operationCount
            let login = try await client.login("alice", "correct horse battery staple")
            #expect(login.status == .ok)
            // The attempt reserved with the account read, then the counters cleared, token and audit row.
            #expect(database.operationCount - before == 2)

            let refreshToken = try #require(try login.json()["refresh_token"] as? String)
            before = database.operationCount
            let refreshed = try await client.postJSON("/token/refresh", #"{"refresh_token":"\#(refreshToken)"}"#)
            #expect(refreshed.status == .ok)
            // The rotation and its audit row, in one statement.
            #expect(database.operationCount - before == 1)

            let next = try #require(try refreshed.json()["refresh_token"] as? String)
            before = database.operationCount
            #expect(try await client.postJSON("/logout", #"{"refresh_token":"\#(next)"}"#).status == .noContent)
            #expect(database.operationCount - before == 2)

            // A wrong password: the attempt reserved with the account read, the audit row
            // (it was counted before the hash, so nothing is left to count after).
            before = database.operationCount
            #expect(try await client.login("alice", "wrong password here").status == .unauthorized)
            #expect(database.operationCount - before == 2)
        }
    }
}
