import AuthCore
import Foundation
import HTTPTypes
import Hummingbird
import WebForms

// The sign-in page's passkey: its script's POST, and where it goes on.
extension AuthorizeController {
    /// The sign-in page's passkey (its script posts the assertion with the page's
    /// anti-forgery token): `POST /webauthn/login`'s rules; the answer is JSON, `{"location"}`
    /// where the script sends the browser on (`/authorize/resume`), or the one error shape.
    func passkey(_ request: Request, context: AuthRequestContext) async throws -> Response {
        guard let passkeys else { throw AuthError.notFound("passkeys are not offered here") }
        let body = try await JSONRequestBody.decode(PagePasskeyRequest.self, from: request, limit: maxBodySize)
        guard case .success(let flow) = try await check(Self.query(of: request), for: request) else {
            throw AuthError.invalidRequest("the authorization request is not valid")
        }
        guard let session = sessions.session(of: request), sessions.acceptsForm(request, csrfToken: body.csrf, session: session) else {
            throw AuthError.invalidRequest("the page's anti-forgery token is missing or stale: reload the page")
        }
        let grant = try await passkeys.logIn(body.credential, origin: context.origin(of: request))
        guard let sessionID = grant.sessionID, let userID = grant.userID else {
            preconditionFailure("a login's grant names its session and user")
        }
        let signIn = BrowserSignIn(userID: userID, sessionID: sessionID, authTime: sessions.clock.now, methods: grant.methods ?? ["hwk"])
        let signedIn = BrowserSession.start(now: signIn.authTime).signedIn(as: signIn)
        return JSONResponse.make(status: .ok, body: ["location": flow.action(.resume)], headers: try sessions.cookie(for: signedIn))
    }

    /// Where the page's script goes after its passkey sign-in: the request goes on with that
    /// sign-in, taken as the request's own (so `prompt=login` and `max_age` hold) when it is
    /// as recent as ``resumeWindow``; else the request starts again.
    func resume(_ request: Request) async throws -> Response {
        let flow: Flow
        switch try await check(Self.query(of: request), for: request) {
        case .success(let checked): flow = checked
        case .failure(let refused): return refused.response
        }
        guard let session = sessions.session(of: request), let signIn = session.signIn,
            sessions.clock.now.timeIntervalSince(signIn.authTime) <= Self.resumeWindow, try await provider.isLive(signIn)
        else {
            return PageResponse.seeOther("/authorize?" + flow.query)
        }
        return try await signedIn(flow, session: session, request: request)
    }
}
