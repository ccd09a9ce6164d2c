import AuthCore
import Foundation

/// The body of `GET /me`: `{"user_id", "username", "created_at"}`, the time in ISO 8601 (UTC).
///
/// ```swift
/// let profile = ProfileResponse(user)
/// profile.userID == user.id.uuidString.lowercased()   // true: the token's `sub`
/// ```
public struct ProfileResponse: Codable, Sendable, Equatable {
    /// The account's id, as in the access token's `sub`.
    public var userID: String
    /// The username as registered.
    public var username: String
    /// When the account was created, e.g. `2026-11-22T18:45:54Z`.
    public var createdAt: String

    /// The profile of `user`.
    public init(_ user: User) {
        self.userID = user.id.uuidString.lowercased()
        self.username = user.username
        self.createdAt = user.createdAt.formatted(.iso8601)
    }

    private enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case username
        case createdAt = "created_at"
    }
}
