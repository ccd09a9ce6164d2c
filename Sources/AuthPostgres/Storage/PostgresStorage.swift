import AuthCore
import Foundation
import Logging
import PostgresNIO

/// authd's storage on PostgreSQL: the one place where a `PostgresClient` is made and
/// the repositories are wired to it.
///
/// ```swift
/// let storage = PostgresStorage(target: try DatabaseURL.parse(url), logger: logger)
/// try await storage.withRunning { storage in
///     try await storage.migrate()
///     return try await storage.users.all()
/// }
/// ```
public struct PostgresStorage: AuthStorage {
    /// The database every repository uses: the primary, or in ``staleReads`` a read replica.
    public private(set) var database: Database
    private let replicas: ReadReplicas

    /// A storage on the database `target` reaches (``DatabaseURL/parse(_:)``); `timeout`
    /// bounds each operation. Reads that may be slightly stale (``staleReads``) go to the
    /// `readReplicas` in turn while each is at most `maximumLag` behind, to the primary
    /// otherwise. Nothing connects until ``run()`` runs.
    public init(
        target: DatabaseTarget, readReplicas: [DatabaseTarget] = [], maximumLag: Duration = .seconds(1), timeout: Duration = .seconds(5),
        logger: Logger, metrics: AuthMetrics = AuthMetrics()
    ) {
        let primary = Database(target: target, timeout: timeout, logger: logger, metrics: metrics)
        self.database = primary
        self.replicas = ReadReplicas(readReplicas.map { Database(replicaOf: primary, target: $0, maximumLag: maximumLag) })
    }

    /// A storage on the database `configuration` reaches (a Unix socket, typically; see
    /// ``DatabaseTarget/init(client:)`` for TCP).
    public init(
        configuration: PostgresClient.Configuration, timeout: Duration = .seconds(5), logger: Logger,
        metrics: AuthMetrics = AuthMetrics()
    ) {
        self.init(target: DatabaseTarget(client: configuration), timeout: timeout, logger: logger, metrics: metrics)
    }

    public var users: PostgresUserRepository { PostgresUserRepository(database: database) }
    public var refreshTokens: PostgresRefreshTokenRepository { PostgresRefreshTokenRepository(database: database) }
    public var loginAttempts: PostgresLoginAttemptStore { PostgresLoginAttemptStore(database: database) }
    public var signingKeys: PostgresSigningKeyRepository { PostgresSigningKeyRepository(database: database) }
    public var readiness: Database { database }
    public var audit: PostgresAuditLog { PostgresAuditLog(database: database) }
    public var accountTokens: PostgresAccountTokenRepository { PostgresAccountTokenRepository(database: database) }
    public var outbox: PostgresDeliveryOutbox { PostgresDeliveryOutbox(database: database) }
    public var secondFactors: PostgresSecondFactorRepository { PostgresSecondFactorRepository(database: database) }
    public var loginChallenges: PostgresLoginChallengeRepository { PostgresLoginChallengeRepository(database: database) }
    public var passkeys: PostgresPasskeyRepository { PostgresPasskeyRepository(database: database) }
    public var clients: PostgresOAuthClientRepository { PostgresOAuthClientRepository(database: database) }
    public var authorizationCodes: PostgresAuthorizationCodeRepository { PostgresAuthorizationCodeRepository(database: database) }
    public var consents: PostgresConsentRepository { PostgresConsentRepository(database: database) }
    public var providers: PostgresIdentityProviderRepository { PostgresIdentityProviderRepository(database: database) }
    public var identities: PostgresIdentityRepository { PostgresIdentityRepository(database: database) }

    @discardableResult
    public func migrate() async throws -> [String] {
        try await MigrationRunner(database: database).migrate()
    }

    /// This storage with its reads on a read replica, the next usable one in turn; nil when
    /// none is usable: for routes that only show what may be a moment old.
    public var staleReads: PostgresStorage? {
        guard let replica = replicas.pick() else { return nil }
        var storage = self
        storage.database = replica
        return storage
    }

    /// Runs the connection pools (and the databases' availability watches) until cancelled.
    public func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await database.runPool() }
            for replica in replicas.databases {
                group.addTask { await replica.runPool() }
            }
        }
    }

    /// The attempt reserved and the account (with whether it has a second factor on) read
    /// in one prepared statement (``LoginLookupStatement``).
    public func loginLookup(usernameKey: String, throttle keys: [ThrottleKey], now: Date) async throws -> LoginLookup {
        try await database.query(LoginLookupStatement(usernameKey: usernameKey, keys: keys, now: now)) { rows in
            var lookup = LoginLookup(refusal: nil, user: nil)
            for try await row in rows {
                let (wait, first, id, username, hash, disabledAt, createdAt, email, verifiedAt, secondFactor) =
                    try row.decode((Int?, Bool?, UUID?, String?, String?, Date?, Date?, String?, Date?, Bool).self)
                lookup.refusal = wait.map { ThrottleRefusal(retryAfter: $0, isFirst: first ?? false) }
                lookup.user = PostgresUserRepository.user((id, username, hash, disabledAt, createdAt, email, verifiedAt))
                lookup.secondFactorRequired = secondFactor
            }
            return lookup
        }
    }

    /// The account and its session's liveness in one prepared statement
    /// (``PostgresUserRepository/UserInSessionStatement``): what every request with an access
    /// token asks.
    public func user(withID id: UUID, inSession session: UUID, now: Date) async throws -> User? {
        try await database.query(PostgresUserRepository.UserInSessionStatement(id: id, session: session, now: now)) { rows in
            for try await row in rows { return PostgresUserRepository.user(try row.decode(PostgresUserRepository.Row.self)) }
            return nil
        }
    }

    /// The writes of a successful login in one prepared statement
    /// (``LoginSuccessStatement``), so one round trip and one transaction.
    public func recordLoginSuccess(_ success: LoginSuccess) async throws -> Bool {
        try await database.query(LoginSuccessStatement(success: success)) { rows in
            for try await row in rows { return try row.decode(Int.self) == 1 }
            return false
        }
    }

    /// The rotation and its audit event in one prepared statement (``RefreshStatement``).
    public func rotateRefreshToken(
        presentedHash: String, successor: RefreshSuccessor, now: Date, events: RotationEvents
    ) async throws -> RefreshRotation {
        try await database.query(RefreshStatement(presentedHash: presentedHash, successor: successor, now: now, events: events)) { rows in
            for try await row in rows {
                return PostgresRefreshTokenRepository.rotation(
                    try row.decode(PostgresRefreshTokenRepository.RotationRow.self), successor: successor)
            }
            return .unknown
        }
    }

    /// Runs `body` while the pool runs, and stops the pool afterwards.
    public func withRunning<T: Sendable>(_ body: @Sendable (Self) async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await self.run() }
            defer { group.cancelAll() }
            await database.waitUntilPoolStarts()
            for replica in replicas.databases { await replica.waitUntilPoolStarts() }
            return try await body(self)
        }
    }
}
