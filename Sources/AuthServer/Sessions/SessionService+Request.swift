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

    /// The request's body, then the account its access token names. The token is checked
    /// first, so a request without a valid one is refused before its body is read; the
    /// account is read once the body is in, so that what the body proves (a password, a
    /// code) is checked against the account as it is now, not as it was when the request
    /// began (a body can take its time to arrive).
    ///
    /// ```swift
    /// let (user, body) = try await sessions.account(of: request) {
    ///     try await JSONRequestBody.decode(AccountDeletionRequest.self, from: request, limit: maxBodySize)
    /// }
    /// ```
    /// With `recentlyAuthenticated`, the token must come of an authentication within
    /// ``AuthCore/SessionService/recentAuthentication`` seconds (RFC 9470), else 401
    /// `insufficient_user_authentication`: what adds or removes a way to sign in, or changes
    /// the email address, asks it.
    func account<Body: Sendable>(
        of request: Request, recentlyAuthenticated: Bool = false, readingFirst readBody: () async throws -> Body
    ) async throws -> (user: User, body: Body) {
        let token = try BearerToken(request.headers[.authorization]).value
        try checkAccessToken(token)
        let body = try await readBody()
        return (try await recentlyAuthenticated ? recentlyAuthenticatedProfile(accessToken: token) : profile(accessToken: token), body)
    }

    /// ``account(of:)`` read at most once per ``AuthCore/RecentAccounts``' lifetime, for
    /// answers that only show the account (`GET /me`).
    func recentAccount(of request: Request) async throws -> User {
        try await recentProfile(accessToken: try BearerToken(request.headers[.authorization]).value)
    }
}
