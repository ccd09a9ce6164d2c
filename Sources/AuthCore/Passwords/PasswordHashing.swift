import Foundation

/// Argon2id as the services use it: every hash and verification runs on a
/// ``BlockingWorkPool``, never on the caller's executor (an event loop).
///
/// ```swift
/// let hashing = PasswordHashing(hasher: Argon2idHasher(), pool: BlockingWorkPool(width: 2, queueLimit: 64))
/// let phc = try await hashing.hash("correct horse battery staple")
/// let checked = try await hashing.hash("correct horse battery staple", screenedBy: PasswordScreen())
/// let (matches, took) = try await hashing.verify("correct horse battery staple", against: phc)
/// ```
public struct PasswordHashing: Sendable {
    /// The hash function and its parameters for new hashes.
    public let hasher: Argon2idHasher
    /// Where the work runs.
    public let pool: BlockingWorkPool

    /// Hashing with `hasher` on `pool`.
    public init(hasher: Argon2idHasher = Argon2idHasher(), pool: BlockingWorkPool) {
        self.hasher = hasher
        self.pool = pool
    }

    /// A new PHC string for `password`.
    /// - Throws: ``AuthError/serviceUnavailable(_:retryAfter:)`` when the pool's queue is full.
    public func hash(_ password: String) async throws -> String {
        let hasher = self.hasher
        return try await pool.run { try hasher.hash(password) }
    }

    /// A new PHC string for the form of `password` that `screen` passes, screened and
    /// hashed in one job on the pool (a breached list is read from disk).
    /// - Throws: what ``PasswordScreen/screened(_:)`` throws, or
    ///   ``AuthError/serviceUnavailable(_:retryAfter:)`` when the pool's queue is full.
    public func hash(_ password: String, screenedBy screen: PasswordScreen) async throws -> String {
        let hasher = self.hasher
        return try await pool.run { try hasher.hash(try screen.screened(password)) }
    }

    /// Whether `password` matches `phc`, and how long the verification took.
    /// - Throws: ``AuthError/serviceUnavailable(_:retryAfter:)`` when the pool's queue is full.
    public func verify(_ password: String, against phc: String) async throws -> (matches: Bool, took: Duration) {
        let hasher = self.hasher
        return try await pool.run {
            let start = ContinuousClock.now
            let matches = hasher.verify(password, against: phc)
            return (matches, ContinuousClock.now - start)
        }
    }

    /// Whether `phc` was made with other parameters than new hashes get.
    public func needsRehash(_ phc: String) -> Bool {
        hasher.needsRehash(phc)
    }
}
