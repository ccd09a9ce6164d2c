import AuthCore
import Hummingbird

/// Second factors over HTTP: an authenticator app enrolled (`POST /mfa/totp`, no body or
/// `{}`), turned on
/// by its first code (`POST /mfa/totp/confirm`, which answers the recovery codes) and off
/// (`DELETE /mfa/totp`, with a code or the password); and the second step of a login
/// (`POST /login/mfa`).
///
/// ```swift
/// router.addRoutes(SecondFactorController(factors: factors, sessions: sessions, issuer: "authd", maxBodySize: 64 * 1024).routes)
/// ```
public struct SecondFactorController<Storage: AuthStorage>: Sendable {
    /// The second-factor rules.
    public let factors: SecondFactorService<Storage>
    /// Verifies the bearer token and finds its account.
    public let sessions: SessionService<Storage>
    /// The name apps show beside the account (the tokens' issuer).
    public let issuer: String
    /// Largest accepted request body, bytes.
    public let maxBodySize: Int

    /// Creates the controller.
    public init(factors: SecondFactorService<Storage>, sessions: SessionService<Storage>, issuer: String, maxBodySize: Int) {
        self.factors = factors
        self.sessions = sessions
        self.issuer = issuer
        self.maxBodySize = maxBodySize
    }

    /// The routes of this feature.
    public var routes: RouteCollection<AuthRequestContext> {
        let routes = RouteCollection(context: AuthRequestContext.self)
        routes.post("/mfa/totp", use: enrol)
        routes.post("/mfa/totp/confirm", use: confirm)
        routes.delete("/mfa/totp", use: remove)
        routes.post("/login/mfa", use: completeLogin)
        return routes
    }

    @Sendable func enrol(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (user, _) = try await sessions.account(of: request, recentlyAuthenticated: true) {
            try await JSONRequestBody.expectNoFields(in: request, limit: maxBodySize)
        }
        let secret = try await factors.beginTOTP(for: user)
        return JSONResponse.make(
            status: .ok,
            body: TOTPEnrolment(
                secret: HummingbirdTOTP.base32(secret),
                otpauthURI: HummingbirdTOTP.authenticatorURI(secret: secret, account: user.username, issuer: issuer)
            )
        )
    }

    @Sendable func confirm(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (user, body) = try await sessions.account(of: request, recentlyAuthenticated: true) {
            try await JSONRequestBody.decode(TOTPConfirmation.self, from: request, limit: maxBodySize)
        }
        let codes = try await factors.confirmTOTP(for: user, code: body.code.value, origin: context.origin)
        return JSONResponse.make(status: .ok, body: RecoveryCodes(recoveryCodes: codes))
    }

    @Sendable func remove(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (user, body) = try await sessions.account(of: request) {
            try await JSONRequestBody.decode(TOTPRemoval.self, from: request, limit: maxBodySize)
        }
        try await factors.removeTOTP(for: user, proof: try body.removal(), origin: context.origin)
        return JSONResponse.noContent()
    }

    @Sendable func completeLogin(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await JSONRequestBody.decode(SecondFactorLoginRequest.self, from: request, limit: maxBodySize)
        let grant = try await factors.completeLogin(
            mfaToken: body.mfaToken.value, proof: try body.proof(), origin: context.origin(of: request))
        return JSONResponse.make(status: .ok, body: TokenResponse(grant))
    }
}
