import Foundation

/// A browser that has signed in on authd's pages: who, in which session (the one the
/// sign-in started; the ID tokens' `sid`), when and how (RFC 8176 methods: `pwd`, `otp`,
/// `hwk`, `swk`). Kept in the sealed browser session; checked against storage at each use
/// (``OpenIDProvider/isLive(_:)``), so signing out or a revocation ends it at once.
///
/// ```swift
/// let signIn = BrowserSignIn(userID: user.id, sessionID: session, authTime: now, methods: ["pwd", "otp"])
/// ```
public struct BrowserSignIn: Sendable, Equatable, Codable {
    public var userID: UUID
    public var sessionID: UUID
    public var authTime: Date
    public var methods: [String]

    public init(userID: UUID, sessionID: UUID, authTime: Date, methods: [String]) {
        self.userID = userID
        self.sessionID = sessionID
        self.authTime = authTime
        self.methods = methods
    }

    /// How long a browser stays signed in after its sign-in, at most (its session may end
    /// sooner): a working day, as Keycloak's SSO session does by default.
    public static let lifetime: TimeInterval = 10 * 3600

    /// Whether the sign-in is recent enough for a request's `max_age` (OpenID Connect Core
    /// §3.1.2.1) at `now`.
    public func satisfies(maxAge: Int?, now: Date) -> Bool {
        guard let maxAge else { return true }
        return now.timeIntervalSince(authTime) <= TimeInterval(maxAge)
    }
}
