import AuthCore
import Logging
import PostgresNIO

/// A `PostgresClient` with a deadline on every operation and one translation of
/// availability failures into ``AuthCore/AuthError/serviceUnavailable(_:retryAfter:)``.
///
/// The client is a ServiceLifecycle service: run it (for example in the application's
/// services) before using the database.
///
/// ```swift
/// let database = Database(client: PostgresClient(configuration: config, backgroundLogger: logger))
/// let count = try await database.run { client in
///     try await client.query("SELECT count(*) FROM users").collect().count
/// }
/// ```
public struct Database: Sendable {
    /// The connection pool.
    public let client: PostgresClient
    /// How long one operation may take, waiting for a connection included.
    public let timeout: Duration
    /// Where queries log (never parameters).
    public let logger: Logger

    /// Wraps `client`.
    public init(client: PostgresClient, timeout: Duration = .seconds(5), logger: Logger = Logger(label: "authd.database")) {
        self.client = client
        self.timeout = timeout
        self.logger = logger
    }

    /// Runs the connection pool until the task is cancelled: the database is usable only
    /// while this runs.
    public func runPool() async {
        await client.run()
    }

    /// Runs `operation` within ``timeout``.
    /// - Throws: `AuthError.serviceUnavailable` when the database cannot be reached in time,
    ///   or what `operation` throws otherwise.
    public func run<T: Sendable>(_ operation: @escaping @Sendable (PostgresClient) async throws -> T) async throws -> T {
        let client = self.client
        let timeout = self.timeout
        do {
            return try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask { try await operation(client) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let value = first else {
                    throw DatabaseUnavailable()
                }
                return value
            }
        } catch let error where Self.isUnavailability(error) {
            logger.warning("database unavailable", metadata: ["reason": "\(Self.reason(error))"])
            throw AuthError.serviceUnavailable("The database is unavailable. Try again shortly.", retryAfter: 2)
        }
    }

    /// Whether `error` means "the database cannot be reached now" rather than a bug.
    static func isUnavailability(_ error: any Error) -> Bool {
        if error is DatabaseUnavailable { return true }
        if let transaction = error as? PostgresTransactionError {
            return [transaction.beginError, transaction.closureError, transaction.commitError, transaction.rollbackError]
                .contains { $0.map(isUnavailability) ?? false }
        }
        guard let error = error as? PSQLError else { return false }
        if error.code != .server { return true }
        guard let state = error.serverInfo?[.sqlState] else { return false }
        // 08: connection exception; 53: insufficient resources; 57P0x: shutdown, cannot connect now.
        return state.hasPrefix("08") || state.hasPrefix("53") || state.hasPrefix("57P")
    }

    /// A description of an error without any query parameter or server detail text.
    static func reason(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            return "\(error.code)" + (error.serverInfo?[.sqlState].map { " sqlstate=\($0)" } ?? "")
        }
        return String(describing: type(of: error))
    }

    /// The SQLSTATE of a server error, if `error` is one.
    static func sqlState(of error: any Error) -> String? {
        if let transaction = error as? PostgresTransactionError, let inner = transaction.closureError {
            return sqlState(of: inner)
        }
        return (error as? PSQLError)?.serverInfo?[.sqlState]
    }

    private struct DatabaseUnavailable: Error {}
}
