import AuthPostgres
import AuthTestSupport
import Foundation
import Testing

/// `authd serve` keeps its whole connection pool open (`pool_max_conns`), so no query pays
/// for the idle timer of a connection the pool might close.
@Suite struct ServePoolTests {
    @Test func serveOpensItsWholePoolAndKeepsIt() async throws {
        let database = try await TestCluster.newDatabase()
        let url = ["--database-url", database.url + "&pool_max_conns=3"]
        let light = ["--argon2-memory", "1024", "--argon2-iterations", "1"]
        // The one-shot command uses one connection: its pool is not fixed.
        #expect(try await AuthdBinary.run(["user", "add", "alice", "--password-stdin"] + url + light, input: "correct horse battery staple").status == 0)
        let (_, status) = try await AuthdBinary.withServer(url + light) { base in
            // Requests that need the database, then the count of authd's connections.
            for _ in 0..<5 {
                #expect(try await AuthdBinary.login(base, "alice", "correct horse battery staple").0 == 200)
            }
            try await TestCluster.withDatabase(database.configuration) { probe in
                var counts: [Int] = []
                for _ in 0..<100 {
                    let rows = try await probe.client.query(
                        "SELECT count(*)::int8 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
                    )
                    for try await count in rows.decode(Int.self) { counts.append(count) }
                    if counts.last == 3 { break }
                    try await Task.sleep(for: .milliseconds(100))
                }
                #expect(counts.last == 3, "authd's connections, the last counts: \(counts.suffix(5))")
            }
        }
        #expect(status == 0)
    }
}
