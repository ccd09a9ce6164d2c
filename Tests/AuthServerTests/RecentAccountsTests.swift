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
        let fixture = try await ServerFixture()
        #expect(fixture.configuration.accountReadLifetime == 1)
        try await fixture.addUser("rhea", password: Self.password)
        let storage = PostgresStorage(
            configuration: fixture.testDatabase.configuration, timeout: TestCluster.operationTimeout, logger: TestCluster.logger)
        let app = try await buildApplication(
            configuration: fixture.configuration, storage: storage, keyEncryptionKey: fixture.keyEncryptionKey)
        try await app.test(.router) { client async throws in
            let token = try #require(try await client.login("rhea", Self.password).json()["access_token"] as? String)
            let bearer: HTTPFields = [.authorization: "Bearer \(token)"]
            // A second /me within the second reads nothing. The pair is tried again when it
            // cannot show that: on a machine too loaded to answer both within the lifetime
            // the second read is due (what is kept is stamped before its read began), and the
            // application's own services (key reloads, retention, deliveries) count in the
            // database's operations too when one of their rounds falls between the two. With
            // no account kept, every pair reads.
            var operations: [Int] = []
            for _ in 0..<5 where operations.last != 0 {
                let start = ContinuousClock.now
                #expect(try await client.execute(uri: "/me", method: .get, headers: bearer).status == .ok)
                let before = storage.database.operationCount
                #expect(try await client.execute(uri: "/me", method: .get, headers: bearer).status == .ok)
                guard ContinuousClock.now - start < .milliseconds(900) else { continue }
                operations.append(storage.database.operationCount - before)
            }
            #expect(operations.last == 0, "database operations of a second /me within the lifetime, in five tries: \(operations)")

            // Disabled by someone else: within a second, refused.
            try await fixture.withDatabase { database in
                _ = try await PostgresUserRepository(database: database).setDisabled(true, usernameKey: "rhea", at: Date())
            }
            try await Task.sleep(for: .milliseconds(1100))
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
