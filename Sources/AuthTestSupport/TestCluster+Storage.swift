import AuthPostgres

extension TestCluster {
    /// Runs `body` with a running ``AuthPostgres/PostgresStorage`` on a new migrated database
    /// (``newMigratedDatabase()``), stopped afterwards: what the services' tests run on, so
    /// the rules they check are the ones PostgreSQL keeps (the rotation's, the throttle's)
    /// and not a copy of them.
    ///
    /// ```swift
    /// try await TestCluster.withStorage { storage in
    ///     let accounts = AccountService(storage: storage, hashing: hashing, clock: clock)
    ///     let alice = try await accounts.create(username: "alice", password: "correct horse battery staple")
    ///     #expect(try await storage.users.user(withKey: "alice") == alice)
    /// }
    /// ```
    public static func withStorage<T: Sendable>(_ body: @Sendable (PostgresStorage) async throws -> T) async throws -> T {
        let database = try await newMigratedDatabase()
        return try await PostgresStorage(configuration: database.configuration, timeout: operationTimeout, logger: logger)
            .withRunning(body)
    }
}
