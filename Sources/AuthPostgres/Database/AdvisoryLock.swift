/// Keys of the transaction-scoped advisory locks authd takes (`pg_advisory_xact_lock`).
enum AdvisoryLock {
    /// Serialises migration runs across processes.
    static let migrations: Int64 = 0x6175_7468_645f_6d67  // "authd_mg"
    /// Serialises creation of the first signing key.
    static let signingKeys: Int64 = 0x6175_7468_645f_6b79  // "authd_ky"
}
