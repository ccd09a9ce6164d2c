import PostgresNIO

/// One SQL statement (or a piece of one) with its bound values, written once and run alone
/// or spliced into a larger statement, where its placeholders are numbered in order. Values
/// are always bound (`$1`, `$2`, …), never pasted into the text.
///
/// ```swift
/// let insert: SQL = "INSERT INTO audit_events (at, kind) VALUES (\(date), \(kind))"
/// let both: SQL = "WITH audit AS (\(insert)) DELETE FROM login_failures WHERE scope = \(scope)"
/// try await client.query(try both.query, logger: logger)   // $1, $2 for insert, $3 for scope
/// ```
struct SQL: Sendable, ExpressibleByStringInterpolation {
    fileprivate enum Part: Sendable {
        case text(String)
        case value(@Sendable (inout PostgresQuery.StringInterpolation) throws -> Void)
        case nested(SQL)
    }

    fileprivate let parts: [Part]

    init(stringLiteral text: String) {
        parts = [.text(text)]
    }

    init(stringInterpolation: StringInterpolation) {
        parts = stringInterpolation.parts
    }

    /// The statement as PostgresNIO runs it.
    var query: PostgresQuery {
        get throws {
            var interpolation = PostgresQuery.StringInterpolation(literalCapacity: 256, interpolationCount: 8)
            try write(into: &interpolation)
            return PostgresQuery(stringInterpolation: interpolation)
        }
    }

    /// The statement's text, with the placeholders its values take (`$1`, `$2`, …), whatever
    /// the values: what a ``PreparedSQL`` statement is prepared with.
    var text: String {
        var text = ""
        var count = 0
        write(text: &text, count: &count)
        return text
    }

    private func write(text: inout String, count: inout Int) {
        for part in parts {
            switch part {
            case .text(let literal): text += literal
            case .value:
                count += 1
                text += "$\(count)"
            case .nested(let sql): sql.write(text: &text, count: &count)
            }
        }
    }

    private func write(into interpolation: inout PostgresQuery.StringInterpolation) throws {
        for part in parts {
            switch part {
            case .text(let text): interpolation.appendLiteral(text)
            case .value(let bind): try bind(&interpolation)
            case .nested(let sql): try sql.write(into: &interpolation)
            }
        }
    }

    /// Builds a statement from literal text, bound values and other statements.
    struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var parts: [Part] = []

        init(literalCapacity: Int, interpolationCount: Int) {
            parts.reserveCapacity(interpolationCount * 2 + 1)
        }

        mutating func appendLiteral(_ literal: String) {
            parts.append(.text(literal))
        }

        /// A bound value.
        mutating func appendInterpolation<Value: PostgresThrowingDynamicTypeEncodable & Sendable>(_ value: Value) {
            parts.append(.value { try $0.appendInterpolation(value) })
        }

        /// A bound value or NULL.
        mutating func appendInterpolation<Value: PostgresThrowingDynamicTypeEncodable & Sendable>(_ value: Value?) {
            parts.append(.value { try $0.appendInterpolation(value) })
        }

        /// Another statement, spliced in with its own values.
        mutating func appendInterpolation(_ sql: SQL) {
            parts.append(.nested(sql))
        }
    }
}

extension Database {
    /// Runs `statement` and discards what it returns.
    func execute(_ statement: SQL) async throws {
        let (query, logger) = (try statement.query, self.logger)
        try await run { client in
            _ = try await client.query(query, logger: logger)
        }
    }
}

extension Database {
    /// Runs `statement` and hands its rows to `read`.
    func query<T: Sendable>(_ statement: SQL, _ read: @escaping @Sendable (PostgresRowSequence) async throws -> T) async throws -> T {
        let (query, logger) = (try statement.query, self.logger)
        return try await run { client in
            try await read(try await client.query(query, logger: logger))
        }
    }
}

extension Database {
    /// Runs the `INSERT`, `UPDATE` or `DELETE` statement `change` (without a `RETURNING`
    /// clause) and returns how many rows it changed.
    func countingChanges(_ change: SQL) async throws -> Int {
        try await query("WITH changed AS (\(change) RETURNING 1) SELECT count(*)::int8 FROM changed") { rows in
            for try await count in rows.decode(Int.self) { return count }
            return 0
        }
    }
}
