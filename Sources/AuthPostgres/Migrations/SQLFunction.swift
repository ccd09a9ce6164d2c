/// A PL/pgSQL function's current body: a file of the top-level `migrations/functions/`,
/// embedded in the binary, that ``MigrationRunner`` applies (`CREATE OR REPLACE FUNCTION`)
/// after the migrations, every time it migrates. The migrations that first made or changed
/// a function stay as history; this file is the one place its rule is read and changed.
///
/// ```swift
/// SQLFunction.all.map(\.name)   // ["login_release", "login_reserve", "rotate_refresh_token"]
/// ```
public struct SQLFunction: Sendable, Equatable {
    /// The function's name, and its file's without `.sql`.
    public let name: String
    /// The `CREATE OR REPLACE FUNCTION` statement.
    public let sql: String
    /// The migration that gave the function its present arguments and results: the body is
    /// applied only to a database that has it (one migrated only part of the way keeps the
    /// body of its own time).
    public let since: String

    /// A function's body, for databases migrated to `since`.
    public init(name: String, sql: String, since: String) {
        self.name = name
        self.sql = sql
        self.since = since
    }

    /// Every function, by name. A test checks this matches the files in
    /// `migrations/functions/`, byte for byte.
    public static let all: [SQLFunction] = [
        SQLFunction(name: "login_release", bytes: PackageResources.login_release_sql, since: "0032_login_release"),
        SQLFunction(name: "login_reserve", bytes: PackageResources.login_reserve_sql, since: "0009_login_attempt_reservations"),
        SQLFunction(name: "rotate_refresh_token", bytes: PackageResources.rotate_refresh_token_sql, since: "0026_oidc_sessions"),
    ]

    private init(name: String, bytes: [UInt8], since: String) {
        self.init(name: name, sql: String(decoding: bytes, as: UTF8.self), since: since)
    }
}
