import AuthCore
import Crypto
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
        var signedIn = session.signedIn(as: signIn)
        signedIn.resumes = Self.digest(of: flow)
        return JSONResponse.make(status: .ok, body: ["location": flow.action(.resume)], headers: try sessions.cookie(for: signedIn))
    }

    /// What names the request `flow` in the browser session: the SHA-256 of its parameters,
    /// in name order, so the same request sent with its parameters in another order is the same.
    static func digest(of flow: Flow) -> String {
        let parameters = flow.parameters.enumerated().sorted { ($0.element.name, $0.offset) < ($1.element.name, $1.offset) }.map(\.element)
        return SHA256.hash(data: Data(FormEncoding.encode(parameters).utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Where the page's script goes after its passkey sign-in: the request the passkey signed
    /// in for goes on with that sign-in, taken as its own (so `prompt=login` and `max_age`
    /// hold), once, and when it is as recent as ``resumeWindow``; any other request starts
    /// again at `/authorize`.
    func resume(_ request: Request) async throws -> Response {
        let flow: Flow
        switch try await check(Self.query(of: request), for: request) {
        case .success(let checked): flow = checked
        case .failure(let refused): return refused.response
        }
        guard var session = sessions.session(of: request), let signIn = session.signIn, session.resumes == Self.digest(of: flow),
            sessions.clock.now.timeIntervalSince(signIn.authTime) <= Self.resumeWindow, try await provider.isLive(signIn)
        else {
            return PageResponse.seeOther("/authorize?" + flow.query)
        }
        session.resumes = nil
        return try await signedIn(flow, session: session, request: request, headers: try sessions.cookie(for: session))
    }
}
