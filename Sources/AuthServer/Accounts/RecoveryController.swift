import AuthCore
import Hummingbird

/// Password reset and email verification, by tokens authd delivers to the app's mailer:
/// `POST /password/reset` (202, whatever the account), `POST /password/reset/confirm` and
/// `POST /email/verify` (204). The routes exist only when a delivery URL is configured: a
/// reset whose message can never leave would be a lie.
///
/// ```swift
/// router.addRoutes(RecoveryController(recovery: recovery, maxBodySize: 64 * 1024).routes)
/// ```
public struct RecoveryController<Storage: AuthStorage>: Sendable {
    /// The recovery rules.
    public let recovery: AccountRecoveryService<Storage>
    /// Largest accepted request body, bytes.
    public let maxBodySize: Int

    /// Creates the controller.
    public init(recovery: AccountRecoveryService<Storage>, maxBodySize: Int) {
        self.recovery = recovery
        self.maxBodySize = maxBodySize
    }

    /// The routes of this feature.
    public var routes: RouteCollection<AuthRequestContext> {
        let routes = RouteCollection(context: AuthRequestContext.self)
        routes.post("/password/reset", use: requestReset)
        routes.post("/password/reset/confirm", use: confirmReset)
        routes.post("/email/verify", use: verifyEmail)
        return routes
    }

    /// 202 with the same body, after the same work, whether or not an account answers to the
    /// name: the token and its message are made after the answer, in a task of their own
    /// (a failure there is logged; the client was told only that the request was accepted).
    @Sendable func requestReset(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await JSONRequestBody.decode(PasswordResetRequest.self, from: request, limit: maxBodySize)
        let accepted = try await recovery.acceptPasswordReset(
            username: body.username?.value, email: body.email?.value, origin: context.origin)
        AfterTheAnswer.run("password reset not issued", logger: context.logger) { [recovery] in try await recovery.issue(accepted) }
        return JSONResponse.make(status: .accepted, body: ResetAccepted())
    }

    @Sendable func confirmReset(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await JSONRequestBody.decode(PasswordResetConfirmation.self, from: request, limit: maxBodySize)
        try await recovery.resetPassword(token: body.token.value, newPassword: body.newPassword.value, origin: context.origin)
        return JSONResponse.noContent()
    }

    @Sendable func verifyEmail(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await JSONRequestBody.decode(EmailVerificationRequest.self, from: request, limit: maxBodySize)
        try await recovery.verifyEmail(token: body.token.value, origin: context.origin)
        return JSONResponse.noContent()
    }
}

/// The one answer of `POST /password/reset`.
struct ResetAccepted: Encodable {
    let status = "accepted"
    let message = "If an account matches, a reset message is on its way."
}
