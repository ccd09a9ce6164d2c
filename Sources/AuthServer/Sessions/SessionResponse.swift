import AuthCore
import Foundation

/// One entry of `GET /sessions`: `{"id", "created_at", "last_used_at", "client_address",
/// "user_agent", "current"}`, times in ISO 8601 (UTC), the address and agent `null` when
/// unknown.
///
/// ```swift
/// let entries = sessions.map { SessionResponse($0, current: $0.id == currentID) }
/// ```
public struct SessionResponse: Encodable, Sendable, Equatable {
    /// The session's id, for `DELETE /sessions/{id}`.
    public var id: String
    /// When its login began it.
    public var createdAt: String
    /// When it last got tokens.
    public var lastUsedAt: String
    /// The client's address at its login.
    public var clientAddress: String?
    /// The client's `User-Agent` at its login.
    public var userAgent: String?
    /// Whether the access token asking was issued in it.
    public var current: Bool

    /// The entry of `session`.
    public init(_ session: Session, current: Bool) {
        self.id = session.id.uuidString.lowercased()
        self.createdAt = session.createdAt.formatted(.iso8601)
        self.lastUsedAt = session.lastUsedAt.formatted(.iso8601)
        self.clientAddress = session.clientAddress
        self.userAgent = session.userAgent
        self.current = current
    }

    private enum CodingKeys: String, CodingKey {
        case id, current
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
        case clientAddress = "client_address"
        case userAgent = "user_agent"
    }

    /// Writes `null` for an unknown address or agent, so every entry has every key.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(lastUsedAt, forKey: .lastUsedAt)
        try container.encode(clientAddress, forKey: .clientAddress)
        try container.encode(userAgent, forKey: .userAgent)
        try container.encode(current, forKey: .current)
    }
}
