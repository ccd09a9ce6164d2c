import AuthCore
import AuthPostgres
import AuthTestSupport
import Foundation
import Testing

/// PostgreSQL's text cannot hold a NUL. A value that reaches a statement with one, past every
/// check in front of it, is the caller's bad input: `invalid_request` (a 400), not a fault.
@Suite struct UnstorableTextTests {
    @Test func aNulInABoundValueIsAnInvalidRequest() async throws {
        try await TestCluster.withMigratedDatabase { database, _ in
            let clients = PostgresOAuthClientRepository(database: database)
            let refused = await #expect(throws: AuthError.self) { try await clients.client(id: "orders\u{0}api") }
            #expect(refused?.code == .invalidRequest)
            #expect(refused?.description == "A value holds a character that cannot be stored (a NUL or an invalid one).")
            // The connection is still good for the next statement.
            let next = try await clients.client(id: "orders-api")
            #expect(next == nil)
        }
    }
}
