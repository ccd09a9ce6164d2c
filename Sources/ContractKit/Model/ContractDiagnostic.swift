/// One problem in a contract file, at a line and column (both from 1).
///
/// ```swift
/// print(diagnostic)   // "contracts/login.yaml:12:7: unknown matcher 'strng'"
/// ```
public struct ContractDiagnostic: Error, Sendable, Hashable, CustomStringConvertible, Comparable {
    /// The file, as given to the loader.
    public let file: String
    /// Line, from 1 (0 when unknown).
    public let line: Int
    /// Column, from 1 (0 when unknown).
    public let column: Int
    /// What is wrong.
    public let message: String

    /// Creates a diagnostic.
    public init(file: String, line: Int, column: Int, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `file:line:column: message`.
    public var description: String {
        "\(file):\(line):\(column): \(message)"
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.file, lhs.line, lhs.column, lhs.message) < (rhs.file, rhs.line, rhs.column, rhs.message)
    }
}

/// Where something was written: file and line, for reports.
///
/// ```swift
/// interaction.location.description   // "contracts/login.yaml:4"
/// ```
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    /// The file.
    public let file: String
    /// Line, from 1.
    public let line: Int

    /// Creates a location.
    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    /// `file:line`.
    public var description: String { "\(file):\(line)" }
}
