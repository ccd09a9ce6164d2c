import AuthPostgres
import AuthTestSupport
import Foundation
import PostgresNIO
import Testing

/// `authd serve` keeps its whole connection pool open (`pool_max_conns`), so no query pays
/// for the idle timer of a connection the pool might close.
@Suite struct ServePoolTests {
    @Test func serveOpensItsWholePoolAndKeepsIt() async throws {
        let database = try await TestCluster.newMigratedDatabase()
        let url = ["--database-url", database.url + "&pool_max_conns=3"]
        let light = ["--argon2-memory", "1024", "--argon2-iterations", "1"]
        // An account to log in with.
        #expect(
            try await AuthdBinary.run(["user", "add", "alice", "--password-stdin"] + url + light, input: "correct horse battery staple")
                .status == 0)
        let (_, status) = try await AuthdBinary.withServer(url + light) { base in
            // Requests that need the database, then the count of authd's connections.
            for _ in 0..<5 {
                #expect(try await AuthdBinary.login(base, "alice", "correct horse battery staple").0 == 200)
            }
            let counts = try await Self.connections(to: database.configuration, until: 3)
            #expect(counts.last == 3, "authd's connections, the last counts: \(counts.suffix(5))")
        }
        #expect(status == 0)
    }

    /// The other connections to the database `configuration` reaches, counted every 0.1 s
    /// until there are `expected` (or 10 s have passed): every count taken.
    static func connections(to configuration: PostgresClient.Configuration, until expected: Int) async throws -> [Int] {
        try await TestCluster.withDatabase(configuration) { probe in
            var counts: [Int] = []
            for _ in 0..<100 {
                let rows = try await probe.client.query(
                    "SELECT count(*)::int8 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
                for try await count in rows.decode(Int.self) { counts.append(count) }
                if counts.last == expected { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            return counts
        }
    }
}
