import AuthCore
import Hummingbird

/// The account: `GET /me`, and what its owner does over HTTP — sign up (`POST /users`,
/// when ``signUpOpen``), change the password (`POST /password`) and delete it
/// (`DELETE /me`), the last two re-authenticated with the password (an account without one
/// deletes itself after a recent sign-in), and, with a delivery
/// URL, change its email address (`POST /email`, after a recent authentication).
///
/// ```swift
/// router.addRoutes(AccountController(login: login, sessions: sessions, accounts: accounts, throttle: policy,
///                                    signUpOpen: true, maxBodySize: 64 * 1024).routes)
/// ```
public struct AccountController<Storage: AuthStorage>: Sendable {
    /// Checks a password presented again, with a login's throttling.
    public let login: LoginService<Storage>
    /// Verifies the bearer token and finds its account.
    public let sessions: SessionService<Storage>
    /// The account rules.
    public let accounts: AccountService<Storage>
    /// The sign-up limit per address (and the digest key of its counter).
    public let throttle: ThrottlePolicy
    /// Whether `POST /users` exists (`serve --signup open`); when not, it is a 404.
    public let signUpOpen: Bool
    /// Sends a verification message after a sign-up with an email address (nil when no
    /// delivery URL is configured: the address stays unverified).
    public let recovery: AccountRecoveryService<Storage>?
    /// Largest accepted request body, bytes.
    public let maxBodySize: Int

    /// Creates the controller.
    public init(
        login: LoginService<Storage>, sessions: SessionService<Storage>, accounts: AccountService<Storage>,
        throttle: ThrottlePolicy, signUpOpen: Bool, recovery: AccountRecoveryService<Storage>? = nil, maxBodySize: Int
    ) {
        self.recovery = recovery
        self.login = login
        self.sessions = sessions
        self.accounts = accounts
        self.throttle = throttle
        self.signUpOpen = signUpOpen
        self.maxBodySize = maxBodySize
    }

    /// The routes of this feature.
    public var routes: RouteCollection<AuthRequestContext> {
        let routes = RouteCollection(context: AuthRequestContext.self)
        routes.get("/me", use: me)
        routes.delete("/me", use: deleteMe)
        routes.post("/password", use: changePassword)
        if signUpOpen {
            routes.post("/users", use: signUp)
        }
        if recovery != nil {
            routes.post("/email", use: changeEmail)
        }
        return routes
    }

    @Sendable func me(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let user = try await sessions.recentAccount(of: request)
        return JSONResponse.make(status: .ok, body: ProfileResponse(user))
    }

    @Sendable func signUp(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await JSONRequestBody.decode(SignUpRequest.self, from: request, limit: maxBodySize)
        let user = try await accounts.signUp(
            username: body.username.value, password: body.password.value, email: body.email?.value, origin: context.origin,
            throttle: throttle
        )
        try await recovery?.requestEmailVerification(for: user, origin: context.origin)
        return JSONResponse.make(status: .created, body: ProfileResponse(user))
    }

    /// 202 with one body whether or not the address is free: the token goes to the new
    /// address, or its holder is told; the address the account has now is told either way.
    @Sendable func changeEmail(_ request: Request, context: AuthRequestContext) async throws -> Response {
        guard let recovery else { throw HTTPError(.notFound) }
        let (user, body) = try await sessions.account(of: request, recentlyAuthenticated: true) {
            try await JSONRequestBody.decode(EmailChangeRequest.self, from: request, limit: maxBodySize)
        }
        try await recovery.requestEmailChange(for: user, to: body.email.value, origin: context.origin)
        return JSONResponse.make(status: .accepted, body: EmailChangeAccepted())
    }

    /// A new token pair; every session of the account, this one included, ends, so the
    /// pair answered is the one that works. The body is read before the account, and the
    /// change is written only while the account is as the password check saw it.
    @Sendable func changePassword(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (user, body) = try await sessions.account(of: request) {
            try await JSONRequestBody.decode(PasswordChangeRequest.self, from: request, limit: maxBodySize)
        }
        let checked = try await login.confirmPassword(of: user, password: body.currentPassword.value, origin: context.origin)
        let changed = try await accounts.changePassword(
            of: checked, username: user.username, to: body.newPassword.value, origin: context.origin)
        sessions.accounts.forget(user.id)
        return JSONResponse.make(
            status: .ok, body: TokenResponse(try await login.issueGrant(for: changed, origin: context.origin(of: request))))
    }

    @Sendable func deleteMe(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (user, body) = try await sessions.account(of: request) {
            try await JSONRequestBody.decode(AccountDeletionRequest.self, from: request, limit: maxBodySize)
        }
        if let password = body.password {
            let checked = try await login.confirmPassword(of: user, password: password.value, origin: context.origin)
            try await accounts.delete(checked, origin: context.origin)
        } else {
            // An account without a password of its own proves itself by a recent sign-in.
            let recent = try await sessions.account(of: request, recentlyAuthenticated: true) {}.user
            try await accounts.deleteWithoutPassword(CheckedAccount(recent), origin: context.origin)
        }
        sessions.accounts.forget(user.id)
        return JSONResponse.noContent()
    }
}

/// The one answer of `POST /email`.
struct EmailChangeAccepted: Encodable {
    let status = "accepted"
    let message = "A message to confirm the new address is on its way."
}
