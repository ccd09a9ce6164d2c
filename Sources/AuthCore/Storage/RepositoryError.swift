/// A storage failure that is not about availability.
///
/// ```swift
/// catch let error as RepositoryError where error == .duplicateUsername { … }
/// ```
public struct RepositoryError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: Sendable, Equatable {
        case duplicateUsername
    }

    private let kind: Kind

    /// The username is already taken (compared case-insensitively).
    public static let duplicateUsername = RepositoryError(kind: .duplicateUsername)

    /// A one-line explanation.
    public var description: String {
        switch kind {
        case .duplicateUsername: "a user with this name already exists"
        }
    }
}
