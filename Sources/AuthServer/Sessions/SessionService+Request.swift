import AuthCore
import Hummingbird

extension SessionService {
    /// The account the request's `Authorization: Bearer` access token names.
    /// - Throws: `invalid_token` (401) for a missing, malformed, expired or revoked token or
    ///   an account that is gone or disabled.
    ///
    /// ```swift
    /// let user = try await sessions.account(of: request)
    /// ```
    func account(of request: Request) async throws -> User {
        try await profile(accessToken: try BearerToken(request.headers[.authorization]).value)
    }

    /// ``account(of:)`` read at most once per ``AuthCore/RecentAccounts``' lifetime, for
    /// answers that only show the account (`GET /me`).
    func recentAccount(of request: Request) async throws -> User {
        try await recentProfile(accessToken: try BearerToken(request.headers[.authorization]).value)
    }
}
