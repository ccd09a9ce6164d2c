import AuthCore
import PostgresNIO

extension Database: ReadinessProbe {
    /// Runs `SELECT 1` within the database timeout.
    ///
    /// ```swift
    /// try await database.check()   // throws service_unavailable when PostgreSQL is down
    /// ```
    public func check() async throws {
        let logger = self.logger
        try await run { client in
            _ = try await client.query("SELECT 1", logger: logger)
        }
    }
}
