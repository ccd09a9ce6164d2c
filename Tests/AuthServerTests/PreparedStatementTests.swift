import AuthCore
import AuthPostgres
import AuthTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import Testing

/// The statements of a login, `/me` and a refresh are prepared once per connection and then
/// executed by name, so PostgreSQL neither parses nor plans them again: with every statement
/// of this test's database logged (`log_statement = all`), the server's log shows them as
/// `execute AuthPostgres.…Statement`, never as an unnamed statement with their text.
@Suite struct PreparedStatementTests {
    @Test func theHotPathsRunPreparedStatements() async throws {
        let fixture = try await ServerFixture()
        try await fixture.addUser("pia", password: "correct horse battery staple")
        let name = fixture.testDatabase.name
        try await fixture.withDatabase { database in
            _ = try await database.client.query(PostgresQuery(unsafeSQL: "ALTER DATABASE \"\(name)\" SET log_statement = 'all'"))
        }
        let logFile = try TestCluster.shared().logFile
        let logged = (try? Data(contentsOf: URL(fileURLWithPath: logFile)).count) ?? 0

        try await fixture.test { client in
            for _ in 0..<2 {
                let tokens = try await client.login("pia", "correct horse battery staple").json()
                let access = try #require(tokens["access_token"] as? String)
                #expect(try await client.execute(uri: "/me", method: .get, headers: [.authorization: "Bearer \(access)"]).status == .ok)
                let refresh = try #require(tokens["refresh_token"] as? String)
                #expect(try await client.postJSON("/token/refresh", #"{"refresh_token":"\#(refresh)"}"#).status == .ok)
            }
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: logFile))
        let log = String(decoding: data.dropFirst(logged), as: UTF8.self)
        let executedByName = log.split(separator: "\n").filter { $0.contains("execute AuthPostgres.") }
        for statement in ["LoginLookupStatement", "LoginSuccessStatement", "UserInSessionStatement", "RefreshStatement"] {
            #expect(executedByName.contains { $0.contains(statement + ":") }, "\(statement) was not executed by name")
        }
        // Unprepared, the lookup would show as "execute <unnamed>: SELECT r.retry_after, …" (the
        // function's body, applied when migrating at start, names it too, but is no call of it).
        let unnamed = log.split(separator: "\n").filter { $0.contains("execute <unnamed>") }
        #expect(
            !unnamed.contains {
                $0.contains("r.retry_after") || $0.contains("FROM users WHERE id =") || $0.contains("FROM rotate_refresh_token(")
            }, "\(unnamed)")
    }
}
