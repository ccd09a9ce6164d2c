/// Everything authd keeps, as one value the composition root injects: PostgreSQL in
/// production (`PostgresStorage`), memory in unit tests (`InMemoryStorage`).
///
/// ```swift
/// func serve(storage: some AuthStorage) async throws {
///     try await storage.migrate()
///     let user = try await storage.users.user(withKey: "alice")
/// }
/// ```
public protocol AuthStorage: Sendable {
    /// Account storage.
    associatedtype Users: UserRepository
    /// Refresh token storage.
    associatedtype RefreshTokens: RefreshTokenRepository
    /// Failed-login counters.
    associatedtype Attempts: LoginAttemptStore
    /// Signing keys.
    associatedtype SigningKeys: SigningKeyRepository
    /// What `GET /health/ready` asks.
    associatedtype Readiness: ReadinessProbe

    /// Accounts.
    var users: Users { get }
    /// Refresh tokens.
    var refreshTokens: RefreshTokens { get }
    /// Failed-login counters.
    var loginAttempts: Attempts { get }
    /// Signing keys.
    var signingKeys: SigningKeys { get }
    /// The readiness check.
    var readiness: Readiness { get }

    /// Brings the schema up to date; returns what it applied (empty when nothing was due).
    @discardableResult
    func migrate() async throws -> [String]

    /// Runs the storage's background work (a connection pool) until the task is cancelled
    /// or shut down; returns at once when there is none.
    func run() async
}
