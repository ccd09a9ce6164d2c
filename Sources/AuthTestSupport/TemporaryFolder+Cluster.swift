import ProcessKit

extension TemporaryFolder {
    /// A temporary folder for an embedded PostgreSQL cluster
    /// (``PostgresEmbedded/EmbeddedPostgres``) to live in. It is searchable by every account
    /// (0755), so that PostgreSQL's unprivileged account reaches it when the tests run as
    /// root: a cluster it cannot reach lives in a fallback folder of its own in the
    /// temporary directory instead, which removing this folder leaves behind (47 MB a
    /// cluster, several each run).
    ///
    /// ```swift
    /// let temporary = try TemporaryFolder.forCluster("authd-e2e")
    /// defer { temporary.remove() }
    /// let cluster = try EmbeddedPostgres(directory: temporary.appending("folder"), durable: false)
    /// ```
    public static func forCluster(_ prefix: String) throws -> TemporaryFolder {
        try TemporaryFolder(prefix, permissions: 0o755)
    }
}
