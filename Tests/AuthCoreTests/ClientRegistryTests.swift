import AuthCore
import AuthPostgres
import AuthTestSupport
import Foundation
import Testing

/// The operator's rules for relying parties, on PostgreSQL: each change audited, a taken id
/// refused unless replaced, a missing one named.
@Suite struct ClientRegistryTests {
    @Test func aClientIsRegisteredReplacedAndRemovedAndEachChangeAudited() async throws {
        try await TestCluster.withStorage { storage in
            let registry = ClientRegistry(storage: storage, clock: TestClock(now: Date(timeIntervalSince1970: 1_800_000_000)))
            let (first, secret) = try await registry.register(id: "orders-api", audiences: ["https://orders.example.com"])
            #expect(secret.count >= 32)
            await #expect(throws: AuthError.self) { try await registry.register(id: "orders-api", audiences: []) }
            let (second, other) = try await registry.register(id: "orders-api", audiences: [], replacing: true)
            #expect(other != secret && second.id == first.id)
            #expect(try await registry.all().map(\.id) == ["orders-api"])
            try await registry.remove(id: "orders-api")
            await #expect(throws: AuthError.notFound("no client named orders-api")) { try await registry.remove(id: "orders-api") }
            let events = try await storage.auditEvents()
            #expect(events.map(\.kind) == [.clientRegistered, .clientRemoved, .clientRegistered, .clientRemoved])
            #expect(events.allSatisfy { $0.detail == "orders-api" })
        }
    }
}
