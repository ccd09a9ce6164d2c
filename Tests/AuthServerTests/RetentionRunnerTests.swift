import AuthCore
import AuthPostgres
import AuthServer
import AuthTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct RetentionRunnerTests {
    /// The application runs retention by itself, every `retentionInterval`, and counts
    /// what it deleted in /metrics.
    @Test func theApplicationDeletesOldAuditEventsByItself() async throws {
        var fixture = try await ServerFixture()
        fixture.configuration.retentionInterval = .milliseconds(200)
        fixture.configuration.retention = RetentionPolicy(auditEvents: 86_400)
        try await fixture.addUser("alice", password: "correct horse battery staple")
        try await fixture.withDatabase { database async throws in
            for index in 0..<3 {
                try await PostgresAuditLog(database: database).record(
                    SecurityEvent(kind: .loginFailed, at: Date().addingTimeInterval(-2 * 86_400 + Double(index)), origin: RequestOrigin())
                )
            }
        }
        let ready = fixture
        try await ready.test { client async throws in
            #expect(try await client.login("alice", "correct horse battery staple").status == .ok)
            let clock = ContinuousClock()
            let start = clock.now
            let counted = #"authd_retention_deleted_total{table="audit_events"} 3"#
            var metrics = ""
            while !metrics.contains(counted), clock.now - start < .seconds(20) {
                try await Task.sleep(for: .milliseconds(100))
                metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            }
            #expect(metrics.contains(counted))
            #expect(try await ready.auditKinds() == ["login_succeeded"])
        }
    }
}
