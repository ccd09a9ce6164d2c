/// How long what a login grants lasts, by default: the domain's rule, which `serve`'s flags
/// and AuthServer's configuration start from.
///
/// ```swift
/// let lifetimes = SessionLifetimes()
/// lifetimes.accessToken     // 900: a quarter of an hour
/// ```
public struct SessionLifetimes: Sendable, Equatable {
    /// An access token, seconds: short, since a signed token cannot be recalled before it
    /// expires (a disabled account's tokens work until then).
    public var accessToken = 900
    /// A refresh token, seconds (30 days): each rotation starts a new one.
    public var refreshToken = 30 * 24 * 3600
    /// A session's absolute lifetime, seconds (90 days): rotation never carries it further.
    public var sessionMaxAge = 90 * 24 * 3600
    /// How long an account read for `GET /me` is used again (``RecentAccounts``), seconds: a
    /// disabled or deleted account is refused everywhere within it.
    public var accountRead: Double = 1

    /// The defaults.
    public init() {}
}
