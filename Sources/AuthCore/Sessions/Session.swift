import Foundation

/// A session as its owner sees it in `GET /sessions`: the refresh-token family one login
/// began, with where and when.
///
/// ```swift
/// for session in try await tokens.sessions(ofUser: user.id, now: clock.now) {
///     print(session.id, session.lastUsedAt, session.userAgent ?? "-")
/// }
/// ```
public struct Session: Sendable, Equatable {
    /// The session's id (the access tokens it issues carry it as `sid`).
    public var id: UUID
    /// When the login began it.
    public var createdAt: Date
    /// When it last got tokens: its login, or its latest refresh.
    public var lastUsedAt: Date
    /// The client's address at the login, if known.
    public var clientAddress: String?
    /// The client's `User-Agent` at the login, if it sent one.
    public var userAgent: String?

    /// Creates a session.
    public init(id: UUID, createdAt: Date, lastUsedAt: Date, clientAddress: String?, userAgent: String?) {
        self.id = id
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.clientAddress = clientAddress
        self.userAgent = userAgent
    }

    /// `text` with control characters dropped and cut to 256 characters: what is kept of a
    /// `User-Agent`.
    public static func bounded(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { !$0.properties.generalCategory.isControlLike }).prefix(256))
    }
}

extension Unicode.GeneralCategory {
    /// Control, format, separator (other than space) and unassigned characters.
    var isControlLike: Bool {
        switch self {
        case .control, .format, .lineSeparator, .paragraphSeparator, .unassigned, .surrogate, .privateUse: true
        default: false
        }
    }
}
