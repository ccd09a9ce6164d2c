import AuthCore
import AuthPostgres
import Logging

extension DatabaseOptions {
    /// Runs `body` with the account rules on the migrated database, passwords set through
    /// `passwords` (``PasswordOptions/screen()``). Hashing runs on a one-thread pool: the
    /// CLI sets one password at a time. An ``AuthCore/AuthError`` becomes a one-line CLI error.
    func withAccounts<T: Sendable>(
        hashing parameters: Argon2idHasher.Parameters = .owasp,
        passwords: PasswordScreen = PasswordScreen(),
        logger: Logger,
        _ body: @escaping @Sendable (AccountService<PostgresStorage>) async throws -> T
    ) async throws -> T {
        try await reportingAuthErrors {
            try await withMigratedStorage(logger: logger) { storage in
                let hashing = PasswordHashing(
                    hasher: Argon2idHasher(parameters: parameters), pool: BlockingWorkPool(width: 1, queueLimit: 0))
                return try await body(AccountService(storage: storage, hashing: hashing, passwords: passwords))
            }
        }
    }

    /// Runs `body` with the relying-party rules on the migrated database. An
    /// ``AuthCore/AuthError`` becomes a one-line CLI error.
    func withClients<T: Sendable>(logger: Logger, _ body: @escaping @Sendable (ClientRegistry<PostgresStorage>) async throws -> T)
        async throws -> T
    {
        try await reportingAuthErrors {
            try await withMigratedStorage(logger: logger) { try await body(ClientRegistry(storage: $0)) }
        }
    }

    private func reportingAuthErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as AuthError {
            throw CLIError(error.description)
        } catch let error as BreachedPasswordList.Invalid {
            throw CLIError(error.description)
        }
    }
}
