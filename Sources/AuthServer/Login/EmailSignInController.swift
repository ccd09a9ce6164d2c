import AuthCore
import Hummingbird

/// Passwordless sign-in by an emailed code: `POST /login/email {"email"}` answers 202 the same
/// for any address, and `POST /login/email/verify` takes `{"email", "code"}` or `{"token"}`
/// and answers the token pair (or `mfa_required`). The routes exist only when a delivery URL
/// is configured, as the recovery routes do.
///
/// ```swift
/// router.addRoutes(EmailSignInController(email: emailSignIn, maxBodySize: 64 * 1024).routes)
/// ```
public struct EmailSignInController<Storage: AuthStorage>: Sendable {
    /// The email sign-in rules.
    public let email: EmailSignIn<Storage>
    /// Largest accepted request body, bytes.
    public let maxBodySize: Int

    /// Creates the controller.
    public init(email: EmailSignIn<Storage>, maxBodySize: Int) {
        self.email = email
        self.maxBodySize = maxBodySize
    }

    /// The routes of this feature.
    public var routes: RouteCollection<AuthRequestContext> {
        let routes = RouteCollection(context: AuthRequestContext.self)
        routes.post("/login/email", use: request)
        routes.post("/login/email/verify", use: verify)
        return routes
    }

    /// 202 with the same body, after the same work, for any address: the code and its message
    /// are made after the answer, in a task of their own.
    @Sendable func request(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await JSONRequestBody.decode(EmailSignInRequest.self, from: request, limit: maxBodySize)
        let accepted = try await email.accept(email: body.email.value, origin: context.origin(of: request))
        AfterTheAnswer.run("email sign-in code not issued", logger: context.logger) { [email] in try await email.issue(accepted) }
        return JSONResponse.make(status: .accepted, body: EmailSignInAccepted())
    }

    @Sendable func verify(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await JSONRequestBody.decode(EmailSignInVerification.self, from: request, limit: maxBodySize)
        let origin = context.origin(of: request)
        let grant: TokenGrant
        switch (body.email, body.code, body.token) {
        case (let address?, let code?, nil):
            grant = try await email.signIn(email: address.value, code: code.value, origin: origin)
        case (nil, nil, let token?):
            grant = try await email.signIn(token: token.value, origin: origin)
        default:
            throw AuthError.invalidRequest("send either email and code, or token")
        }
        return JSONResponse.make(status: .ok, body: TokenResponse(grant))
    }
}

/// The one answer of `POST /login/email`.
struct EmailSignInAccepted: Encodable {
    let status = "accepted"
    let message = "If an account has this address, verified, a sign-in code is on its way."
}
