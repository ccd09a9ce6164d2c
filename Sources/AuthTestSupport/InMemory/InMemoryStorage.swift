import AuthCore

/// All of authd's storage in memory: for unit tests of the login rules and for router
/// tests that need no PostgreSQL. The PostgreSQL tests stay the proof that the real
/// storage behaves the same.
///
/// ```swift
/// let storage = InMemoryStorage()
/// let app = try await buildApplication(configuration: AppConfiguration(), storage: storage)
/// ```
public struct InMemoryStorage: AuthStorage {
    public let users: InMemoryUserRepository
    public let refreshTokens: InMemoryRefreshTokenRepository
    public let loginAttempts = InMemoryLoginAttemptStore()
    public let signingKeys = InMemorySigningKeyRepository()
    public let readiness = AlwaysReady()
    public let audit = InMemoryAuditLog()
    public let accountTokens: InMemoryAccountTokenRepository
    public let secondFactors: InMemorySecondFactorRepository
    public let loginChallenges = InMemoryLoginChallengeRepository()
    public let passkeys: InMemoryPasskeyRepository
    public let clients = InMemoryOAuthClientRepository()

    /// Empty storage.
    public init() {
        users = InMemoryUserRepository()
        refreshTokens = InMemoryRefreshTokenRepository(users: users)
        accountTokens = InMemoryAccountTokenRepository(users: users, refreshTokens: refreshTokens)
        passkeys = InMemoryPasskeyRepository(users: users)
        secondFactors = InMemorySecondFactorRepository(users: users)
    }

    public var outbox: InMemoryDeliveryOutbox { InMemoryDeliveryOutbox(tokens: accountTokens) }

    /// Nothing to migrate.
    public func migrate() async throws -> [String] { [] }

    /// Nothing runs in the background.
    public func run() async {}
}

/// A readiness probe that always passes.
///
/// ```swift
/// try await AlwaysReady().check()   // returns
/// ```
public struct AlwaysReady: ReadinessProbe {
    /// Creates the probe.
    public init() {}

    public func check() async throws {}
}
