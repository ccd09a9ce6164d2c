import AuthCore
import Foundation
import Hummingbird

/// The relying parties' endpoints, form-encoded as the RFCs say, answered in the one error
/// shape: `POST /oauth/token` (`authorization_code` and `refresh_token` for OpenID Connect
/// clients, `refresh_token` for authd's own login routes, `client_credentials` for registered
/// relying parties), `POST /oauth/introspect` (RFC 7662) and
/// `POST /oauth/revoke` (RFC 7009), the last two for registered relying parties only.
///
/// ```swift
/// router.addRoutes(OAuthController(parties: RelyingPartyService(sessions: sessions), provider: provider, maxBodySize: 64 * 1024).routes)
/// ```
public struct OAuthController<Storage: AuthStorage>: Sendable {
    /// The relying-party rules.
    public let parties: RelyingPartyService<Storage>
    /// The OpenID Connect rules.
    public let provider: OpenIDProvider<Storage>
    /// Largest accepted request body, bytes.
    public let maxBodySize: Int

    /// Creates the controller.
    public init(parties: RelyingPartyService<Storage>, provider: OpenIDProvider<Storage>, maxBodySize: Int) {
        self.parties = parties
        self.provider = provider
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
        case "authorization_code":
            let client = try await signInClient(credentials, origin: context.origin)
            let tokens = try await provider.exchange(
                code: try form.required("code"), client: client, redirectURI: form["redirect_uri"], verifier: form["code_verifier"],
                origin: context.origin(of: request))
            return JSONResponse.make(status: .ok, body: OIDCTokenResponse(tokens))
        case "refresh_token" where credentials.map({ $0.clientID != OAuthClient.firstPartyID }) ?? false:
            // An OpenID Connect client's session: its own tokens only. A relying party that does
            // not sign users in has none: a user's refresh token was not issued to it.
            let client: OAuthClient
            do {
                client = try await signInClient(credentials, origin: context.origin)
            } catch let error as AuthError where error.code == .unauthorizedClient {
                throw AuthError.invalidGrant
            }
            let tokens = try await provider.refresh(
                refreshToken: try form.required("refresh_token"), client: client, origin: context.origin(of: request))
            return JSONResponse.make(status: .ok, body: OIDCTokenResponse(tokens))
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

    /// The OpenID Connect client `credentials` name: a confidential one by its secret, a
    /// public one by its id alone (RFC 6749 §2.1; its proof is the PKCE verifier).
    /// - Throws: `invalid_client` for no credentials, an unknown or wrong one, a public client
    ///   that sent a secret or a confidential one that sent none, or a client that does not
    ///   sign users in.
    private func signInClient(_ credentials: ClientAuthentication?, origin: RequestOrigin) async throws -> OAuthClient {
        guard let credentials else { throw AuthError.invalidClient }
        let client: OAuthClient
        if let secret = credentials.secret {
            client = try await parties.authenticate(clientID: credentials.clientID, secret: secret, origin: origin)
            guard !client.signIn.isPublic else { throw AuthError.invalidClient }
        } else {
            guard let found = try await provider.client(id: credentials.clientID), found.signIn.isPublic else {
                throw AuthError.invalidClient
            }
            client = found
        }
        guard client.signIn.signsUsersIn else { throw AuthError.unauthorizedClient }
        return client
    }

    /// The registered client `credentials` name, with its secret.
    private func authenticate(_ credentials: ClientAuthentication?, origin: RequestOrigin) async throws -> OAuthClient {
        guard let credentials, let secret = credentials.secret else { throw AuthError.invalidClient }
        return try await parties.authenticate(clientID: credentials.clientID, secret: secret, origin: origin)
    }
}
