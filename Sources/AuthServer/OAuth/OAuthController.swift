import AuthCore
import Foundation
import Hummingbird

/// The relying parties' endpoints, form-encoded as the RFCs say, answered in the one error
/// shape: `POST /oauth/token` (`refresh_token` for authd's own clients, `client_credentials`
/// for registered relying parties), `POST /oauth/introspect` (RFC 7662) and
/// `POST /oauth/revoke` (RFC 7009), the last two for registered relying parties only.
///
/// ```swift
/// router.addRoutes(OAuthController(parties: RelyingPartyService(sessions: sessions), maxBodySize: 64 * 1024).routes)
/// ```
public struct OAuthController<Storage: AuthStorage>: Sendable {
    /// The relying-party rules.
    public let parties: RelyingPartyService<Storage>
    /// Largest accepted request body, bytes.
    public let maxBodySize: Int

    /// Creates the controller.
    public init(parties: RelyingPartyService<Storage>, maxBodySize: Int) {
        self.parties = parties
        self.maxBodySize = maxBodySize
    }

    /// The routes of this feature.
    public var routes: RouteCollection<AuthRequestContext> {
        let routes = RouteCollection(context: AuthRequestContext.self)
        routes.post("/oauth/token", use: token)
        routes.post("/oauth/introspect", use: introspect)
        routes.post("/oauth/revoke", use: revoke)
        return routes
    }

    @Sendable func token(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (form, credentials) = try await read(request)
        switch try form.required("grant_type") {
        case "refresh_token":
            // Users' refresh tokens are issued to authd's own login routes: a registered relying
            // party that authenticates is told so; one that fails to is invalid_client first.
            if let credentials, credentials.clientID != OAuthClient.firstPartyID || credentials.secret != nil {
                _ = try await authenticate(credentials, origin: context.origin)
                throw AuthError.invalidGrant
            }
            let grant = try await parties.refresh(refreshToken: try form.required("refresh_token"), origin: context.origin(of: request))
            return JSONResponse.make(status: .ok, body: TokenResponse(grant))
        case "client_credentials":
            let client = try await authenticate(credentials, origin: context.origin)
            let issued = try await parties.clientToken(for: client, origin: context.origin)
            return JSONResponse.make(status: .ok, body: ClientTokenResponse(issued))
        default:
            throw AuthError.unsupportedGrantType("grant_type must be one of \(ServerMetadata.grantTypes.joined(separator: ", "))")
        }
    }

    @Sendable func introspect(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (form, credentials) = try await read(request)
        let client = try await authenticate(credentials, origin: context.origin)
        let answer = try await parties.introspect(try form.required("token"), by: client)
        return JSONResponse.make(status: .ok, body: IntrospectionResponse(answer))
    }

    @Sendable func revoke(_ request: Request, context: AuthRequestContext) async throws -> Response {
        let (form, credentials) = try await read(request)
        let client = try await authenticate(credentials, origin: context.origin)
        try await parties.revoke(try form.required("token"), by: client, origin: context.origin)
        return Response(status: .ok, headers: [.cacheControl: "no-store", .contentLength: "0"])
    }

    /// The form body and the client credentials it or the `Authorization` header carries.
    private func read(_ request: Request) async throws -> (FormRequestBody, ClientAuthentication?) {
        let form = try await FormRequestBody.read(from: request, limit: maxBodySize)
        return (form, try ClientAuthentication(authorization: request.headers[.authorization], form: form))
    }

    /// The registered client `credentials` name, with its secret.
    private func authenticate(_ credentials: ClientAuthentication?, origin: RequestOrigin) async throws -> OAuthClient {
        guard let credentials, let secret = credentials.secret else { throw AuthError.invalidClient }
        return try await parties.authenticate(clientID: credentials.clientID, secret: secret, origin: origin)
    }
}
