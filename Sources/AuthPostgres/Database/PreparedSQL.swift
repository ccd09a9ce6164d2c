import PostgresNIO

/// A statement of a hot path (a login, `/me`, a refresh), prepared once per connection:
/// PostgreSQL parses and plans it on its first use there, and afterwards only binds and
/// runs it. The type holds the statement's values; ``statement`` is the ``SQL`` it runs,
/// written as any other. Values are always bound, so the text does not depend on them:
/// `sql` is the text of the statement made with any values (``SQL/text``). A statement
/// whose text comes out different from `sql` when it runs is refused, never run under the
/// name of another.
///
/// ```swift
/// struct UserByID: PreparedSQL {
///     static let sql = Self(id: UUID()).statement.text
///     var id: UUID
///     var statement: SQL { "SELECT \(PostgresUserRepository.columns) FROM users WHERE id = \(id)" }
/// }
/// let user = try await database.query(UserByID(id: id)) { rows in
///     for try await row in rows { return try row.decode(PostgresUserRepository.Row.self) }
///     return nil
/// }
/// ```
protocol PreparedSQL: PostgresPreparedStatement where Row == PostgresRow {
    /// The statement with this instance's values.
    var statement: SQL { get }
}

extension PreparedSQL {
    func makeBindings() throws -> PostgresBindings {
        let query = try statement.query
        guard query.sql == Self.sql else { throw PreparedTextMismatch(name: Self.name) }
        return query.binds
    }

    func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
}

/// A prepared statement's text changed with its values: a programming error.
struct PreparedTextMismatch: Error, CustomStringConvertible {
    let name: String
    var description: String { "the text of the prepared statement \(name) depends on its values" }
}

extension Database {
    /// Runs the prepared `statement` and hands its rows to `read`.
    func query<Statement: PreparedSQL, T: Sendable>(
        _ statement: Statement,
        _ read: @escaping @Sendable (AsyncThrowingMapSequence<PostgresRowSequence, PostgresRow>) async throws -> T
    ) async throws -> T {
        let logger = self.logger
        return try await run { client in
            try await read(try await client.execute(statement, logger: logger))
        }
    }
}
