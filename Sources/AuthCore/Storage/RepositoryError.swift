/// A storage failure that is not about availability.
///
/// ```swift
/// catch let error as RepositoryError where error == .duplicateUsername { … }
/// ```
public struct RepositoryError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: Sendable, Equatable {
        case duplicateUsername
        case duplicateEmail
    }

    private let kind: Kind

    /// The username is already taken (compared case-insensitively).
    public static let duplicateUsername = RepositoryError(kind: .duplicateUsername)

    /// Another account has this email address (compared case-insensitively).
    public static let duplicateEmail = RepositoryError(kind: .duplicateEmail)

    /// A one-line explanation.
    public var description: String {
        switch kind {
        case .duplicateUsername: "a user with this name already exists"
        case .duplicateEmail: "a user with this email address already exists"
        }
    }
}
