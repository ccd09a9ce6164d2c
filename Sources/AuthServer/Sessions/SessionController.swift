import AuthCore
import Foundation
import Hummingbird
import WebForms

/// What follows a login: `POST /token/refresh` (rotation), `POST /logout`, and the
/// owner's view of their sessions: `GET /sessions`, `DELETE /sessions/{id}`,
/// `DELETE /sessions` (all but the current one; every one with `?all=true`).
///
/// ```swift
/// router.addRoutes(SessionController(sessions: sessions, maxBodySize: 64 * 1024).routes)
/// ```
public struct SessionController<Storage: AuthStorage>: Sendable {
    /// The session rules.
    public let sessions: SessionService<Storage>
    /// Largest accepted request body, bytes.
    public let maxBodySize: Int

    /// Creates the controller.
    /// What a form posted to `/logout` is: OpenID Connect's end-session request (RP-Initiated
    /// Logout 1.0 §2 has the endpoint take `POST` too), nil when authd serves none.
    public let endSession: (@Sendable (Request, AuthRequestContext) async throws -> Response)?

    public init(
        sessions: SessionService<Storage>, maxBodySize: Int,
        endSession: (@Sendable (Request, AuthRequestContext) async throws -> Response)? = nil
    ) {
        self.sessions = sessions
        self.maxBodySize = maxBodySize
        self.endSession = endSession
    }

    /// The routes of this feature.
    public var routes: RouteCollection<AuthRequestContext> {
        let routes = RouteCollection(context: AuthRequestContext.self)
        routes.post("/token/refresh", use: refresh)
        routes.post("/logout", use: logOut)
        routes.get("/sessions", use: list)
        routes.delete("/sessions", use: endAll)
        routes.delete("/sessions/{id}", use: end)
        return routes
    }

    @Sendable func list(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (sessions, current) = try await sessions.sessions(accessToken: try BearerToken(request.headers[.authorization]).value)
        return JSONResponse.make(status: .ok, body: sessions.map { SessionResponse($0, current: $0.id == current) })
    }

    @Sendable func end(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let token = try BearerToken(request.headers[.authorization]).value
        // An id that is not a UUID names no session of anyone's.
        guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
            _ = try await sessions.profile(accessToken: token)
            throw AuthError.notFound("no such session")
        }
        try await sessions.endSession(id, accessToken: token, origin: context.origin)
        return JSONResponse.noContent()
    }

    @Sendable func endAll(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let token = try BearerToken(request.headers[.authorization]).value
        let all: Bool
        switch request.uri.queryParameters.get("all") {
        case nil, "false": all = false
        case "true": all = true
        default: throw AuthError.invalidRequest("all must be true or false")
        }
        try await sessions.endSessions(accessToken: token, all: all, origin: context.origin)
        return JSONResponse.noContent()
    }

    @Sendable func refresh(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let body = try await JSONRequestBody.decode(RefreshTokenRequest.self, from: request, limit: maxBodySize)
        let grant = try await sessions.refresh(refreshToken: body.refreshToken.value, origin: context.origin)
        return JSONResponse.make(status: .ok, body: TokenResponse(grant))
    }

    @Sendable func logOut(_ request: Request, context: AuthRequestContext) async throws -> Response {
        if let endSession, FormEncoding.isForm(contentType: request.headers[.contentType]) {
            return try await endSession(request, context)
        }
        let body = try await JSONRequestBody.decode(RefreshTokenRequest.self, from: request, limit: maxBodySize)
        try await sessions.logout(refreshToken: body.refreshToken.value, origin: context.origin)
        return JSONResponse.noContent()
    }
}
