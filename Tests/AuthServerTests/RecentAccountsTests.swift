import AuthCore
import AuthPostgres
import AuthServer
import AuthTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// `GET /me` reads the token's account at most once a second (``AppConfiguration/accountReadLifetime``):
/// repeated calls cost no database operation, an account disabled elsewhere (another
/// instance, `authd user disable`) is refused once the second has passed, and one this
/// instance deletes is refused at once.
@Suite struct RecentAccountsTests {
    static let password = "correct horse battery staple"

    @Test func meReadsTheAccountOnceASecondAndADisablingElsewhereHoldsWithinIt() async throws {
        var configured = try await ServerFixture()
        #expect(configured.configuration.accountReadLifetime == 1)
        // The lifetime runs on the injected clock: it moves only when the test moves it, so a
        // second /me is within it however loaded the machine (on real time, five pairs once
        // all took longer than the second).
        let clock = TestClock()
        configured.configuration.clock = clock
        let fixture = configured
        try await fixture.addUser("rhea", password: Self.password)
        let storage = PostgresStorage(
            configuration: fixture.testDatabase.configuration, timeout: TestCluster.operationTimeout, logger: TestCluster.logger)
        let app = try await buildApplication(
            configuration: fixture.configuration, storage: storage, keyEncryptionKey: fixture.keyEncryptionKey)
        try await app.test(.router) { client async throws in
            let token = try #require(try await client.login("rhea", Self.password).json()["access_token"] as? String)
            let bearer: HTTPFields = [.authorization: "Bearer \(token)"]
            // A second /me within the second reads nothing. The pair is tried again when the
            // application's own services (key reloads, retention, deliveries) counted in the
            // database's operations, a round of theirs falling between the two. With no
            // account kept, every pair reads.
            var operations: [Int] = []
            for _ in 0..<5 where operations.last != 0 {
                #expect(try await client.execute(uri: "/me", method: .get, headers: bearer).status == .ok)
                let before = storage.database.operationCount
                #expect(try await client.execute(uri: "/me", method: .get, headers: bearer).status == .ok)
                operations.append(storage.database.operationCount - before)
            }
            #expect(operations.last == 0, "database operations of a second /me within the lifetime, in five tries: \(operations)")

            // Disabled by someone else: within a second, refused.
            try await fixture.withDatabase { database in
                _ = try await PostgresUserRepository(database: database).setDisabled(true, usernameKey: "rhea", at: Date())
            }
            #expect(try await client.execute(uri: "/me", method: .get, headers: bearer).status == .ok, "still within the second")
            clock.advance(by: 1.1)
            #expect(try await client.execute(uri: "/me", method: .get, headers: bearer).status == .unauthorized)
        }
    }

    /// An access token of a session that has ended is refused: at once after this
    /// instance's logout, and within the lifetime when another instance (here, the database
    /// directly) ends it.
    @Test func aTokenOfAnEndedSessionIsRefusedAtOnceHereAndWithinASecondElsewhere() async throws {
        let fixture = try await ServerFixture()
        try await fixture.addUser("rosa", password: Self.password)
        try await fixture.test { client in
            let first = try await client.login("rosa", Self.password).json()
            let access = try #require(first["access_token"] as? String)
            let refresh = try #require(first["refresh_token"] as? String)
            let bearer: HTTPFields = [.authorization: "Bearer \(access)"]
            #expect(try await client.execute(uri: "/me", method: .get, headers: bearer).status == .ok)
            #expect(try await client.postJSON("/logout", #"{"refresh_token":"\#(refresh)"}"#).status == .noContent)
            #expect(try await client.execute(uri: "/me", method: .get, headers: bearer).status == .unauthorized)
            #expect(try await client.execute(uri: "/sessions", method: .get, headers: bearer).status == .unauthorized)

            let second = try #require(try await client.login("rosa", Self.password).json()["access_token"] as? String)
            let other: HTTPFields = [.authorization: "Bearer \(second)"]
            #expect(try await client.execute(uri: "/me", method: .get, headers: other).status == .ok)
            try await fixture.withDatabase { database in
                _ = try await database.client.query("UPDATE refresh_families SET revoked_at = now() WHERE revoked_at IS NULL")
            }
            // Fresh reads (the routes that act on the account) see it at once; /me within the second.
            #expect(try await client.execute(uri: "/sessions", method: .get, headers: other).status == .unauthorized)
            try await Task.sleep(for: .milliseconds(1100))
            #expect(try await client.execute(uri: "/me", method: .get, headers: other).status == .unauthorized)
        }
    }

    @Test func anAccountThisInstanceDeletesIsRefusedAtOnce() async throws {
        let fixture = try await ServerFixture()
        try await fixture.addUser("remy", password: Self.password)
        try await fixture.test { client in
            let token = try #require(try await client.login("remy", Self.password).json()["access_token"] as? String)
            let bearer: HTTPFields = [.authorization: "Bearer \(token)", .contentType: "application/json"]
            #expect(try await client.execute(uri: "/me", method: .get, headers: bearer).status == .ok)
            let deleted = try await client.execute(
                uri: "/me", method: .delete, headers: bearer, body: ByteBuffer(string: #"{"password":"\#(Self.password)"}"#)
            )
            #expect(deleted.status == .noContent)
            #expect(try await client.execute(uri: "/me", method: .get, headers: bearer).status == .unauthorized)
        }
    }
}
