import AuthCore
import Hummingbird
import WebAuthn

/// Passkeys over HTTP (WebAuthn, relying-party side). With a bearer token: registration
/// options and registration, the account's passkeys listed and removed; without: login
/// options and login. The options and the credentials are WebAuthn's JSON (camelCase, as
/// `PublicKeyCredential.parseCreationOptionsFromJSON` and `toJSON()` use); authd's own
/// answers stay snake_case.
///
/// ```swift
/// router.addRoutes(PasskeyController(passkeys: passkeys, sessions: sessions, maxBodySize: 64 * 1024).routes)
/// ```
public struct PasskeyController<Storage: AuthStorage>: Sendable {
    /// The passkey rules.
    public let passkeys: PasskeyService<Storage>
    /// Verifies the bearer token and finds its account.
    public let sessions: SessionService<Storage>
    /// Largest accepted request body, bytes.
    public let maxBodySize: Int

    /// Creates the controller.
    public init(passkeys: PasskeyService<Storage>, sessions: SessionService<Storage>, maxBodySize: Int) {
        self.passkeys = passkeys
        self.sessions = sessions
        self.maxBodySize = maxBodySize
    }

    /// The routes of this feature.
    public var routes: RouteCollection<AuthRequestContext> {
        let routes = RouteCollection(context: AuthRequestContext.self)
        routes.post("/webauthn/register/options", use: registrationOptions)
        routes.post("/webauthn/register", use: register)
        routes.post("/webauthn/login/options", use: loginOptions)
        routes.post("/webauthn/login", use: logIn)
        routes.get("/webauthn/credentials", use: list)
        routes.delete("/webauthn/credentials/{id}", use: remove)
        return routes
    }

    @Sendable func registrationOptions(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (user, _) = try await sessions.account(of: request, recentlyAuthenticated: true) {
            try await JSONRequestBody.expectNoFields(in: request, limit: maxBodySize)
        }
        return JSONResponse.make(status: .ok, body: try await passkeys.registrationOptions(for: user))
    }

    @Sendable func register(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (user, body) = try await sessions.account(of: request, recentlyAuthenticated: true) {
            try await JSONRequestBody.decode(PasskeyRegistrationRequest.self, from: request, limit: maxBodySize)
        }
        let passkey = try await passkeys.register(body.credential, name: body.name?.value, for: user, origin: context.origin)
        return JSONResponse.make(status: .created, body: PasskeyResponse(passkey))
    }

    @Sendable func loginOptions(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await JSONRequestBody.decodeOrEmpty(PasskeyLoginOptionsRequest.self, from: request, limit: maxBodySize)
        return JSONResponse.make(
            status: .ok, body: try await passkeys.authenticationOptions(username: body.username?.value, origin: context.origin))
    }

    @Sendable func logIn(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await JSONRequestBody.decode(PasskeyLoginRequest.self, from: request, limit: maxBodySize)
        let grant = try await passkeys.logIn(body.credential, origin: context.origin(of: request))
        return JSONResponse.make(status: .ok, body: TokenResponse(grant))
    }

    @Sendable func list(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let user = try await sessions.account(of: request)
        return JSONResponse.make(status: .ok, body: try await passkeys.passkeys(of: user).map(PasskeyResponse.init))
    }

    @Sendable func remove(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (user, _) = try await sessions.account(of: request, recentlyAuthenticated: true) {}
        try await passkeys.remove(id: try context.parameters.require("id"), of: user, origin: context.origin)
        return JSONResponse.noContent()
    }
}
