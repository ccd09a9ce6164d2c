import ContractKit
import Foundation
import Hummingbird
import JOSE
import NIOCore
import Synchronization
import WebForms

/// The toy's browser flow, for the tests of `location:`, `cookies:`, `html:`, the cookie
/// jar, `follow_redirects` and `pkce_s256`: `GET /toy/authorize` shows a page with a form and
/// an anti-forgery token and sets a `__Host-` session cookie; `POST /toy/sign-in` (that
/// cookie, the token and the password `secret`) sends the browser to the app's redirect URI
/// with a code and the `state`; `POST /toy/token` gives a token for the code and the verifier of
/// the challenge; `POST /toy/go` redirects to `/toy/home`, which answers only with the cookie.
extension ToyProvider {
    /// The contract of the routes above.
    public static let browserContract = """
        name: Browser
        interactions:
          - name: the page sets a cookie and holds a form
            request:
              method: GET
              path: /toy/authorize
              query:
                state: { match: string, min_length: 1, example: xyz }
                code_challenge: { match: pkce_s256, verifier: dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk }
            response:
              status: 200
              headers: { Content-Type: "text/html; charset=utf-8" }
              cookies:
                __Host-toy: { value: { match: string, min_length: 8, example: stub-session }, http_only: true, secure: true, same_site: Lax, path: /, max_age: { match: integer, min: 1, example: 600 } }
              html:
                - select: html
                  attributes: { lang: en }
                - select: 'form[action="/toy/sign-in"] input[type=hidden][name=csrf]'
                  attributes: { value: { match: string, min_length: 8 } }
                - select: 'input[type=password]'
                  count: 1
              body:
                match: regex
                pattern: "(?s)<!DOCTYPE html>.*"
                example: '<!DOCTYPE html><html lang="en"><form method="post" action="/toy/sign-in"><input type="hidden" name="csrf" value="stub-csrf-1"><input type="password" name="password"></form></html>'
            save:
              csrf: 'response.html.input[name=csrf]@value'
              state: request.query.state
              challenge: request.query.code_challenge
          - name: the form signs in and the browser goes back to the app with a code
            request:
              method: POST
              path: /toy/sign-in
              form: { csrf: "{{csrf}}", password: secret }
            response:
              status: 303
              strict: true
              location:
                url: "https://app.example/cb"
                query:
                  code: { match: string, min_length: 8, example: stub-code-1 }
                  state: "{{state}}"
              cookies:
                __Host-toy: { http_only: true, secure: true, same_site: Lax, path: / }
            save:
              code: response.location.query.code
          - name: the code and the verifier of the challenge give a token
            request:
              method: POST
              path: /toy/token
              form:
                grant_type: authorization_code
                code: "{{code}}"
                code_verifier: { match: pkce_s256, challenge: "{{challenge}}", example: dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk }
            response:
              status: 200
              json: { access_token: { match: string, min_length: 8 } }
          - name: a redirect to the toy itself is followed with the cookie
            request:
              method: POST
              path: /toy/go
              follow_redirects: true
            response:
              status: 200
              json: { signed_in: true }
        """

    static func addBrowserRoutes(to router: Router<BasicRequestContext>) {
        struct Session {
            var csrf: String
            var state: String
            var challenge: String
            var signedIn = false
        }
        let sessions = Mutex<[String: Session]>([:])
        let codes = Mutex<[String: String]>([:])
        @Sendable func cookie(of request: Request) -> String? {
            request.headers[.cookie]?.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
                .first { $0.hasPrefix("__Host-toy=") }.map { String($0.dropFirst("__Host-toy=".count)) }
        }
        @Sendable func form(of request: Request) async throws -> [String: String] {
            let data = Data(buffer: try await request.body.collect(upTo: 1 << 16))
            return Dictionary(FormEncoding.decode(data) ?? [], uniquingKeysWith: { first, _ in first })
        }
        router.get("/toy/authorize") { request, _ -> Response in
            let query = Dictionary(request.uri.queryParameters.map { (String($0.key), String($0.value)) }, uniquingKeysWith: { a, _ in a })
            let id = SecureRandom.base64URLText(length: 22)
            let csrf = SecureRandom.base64URLText(length: 22)
            sessions.withLock { $0[id] = Session(csrf: csrf, state: query["state"] ?? "", challenge: query["code_challenge"] ?? "") }
            let page =
                #"<!DOCTYPE html><html lang="en"><body><form method="post" action="/toy/sign-in"><input type="hidden" name="csrf" value="\#(csrf)"><input type="password" name="password"><button>Go</button></form></body></html>"#
            var headers: HTTPFields = [.contentType: "text/html; charset=utf-8"]
            headers[.setCookie] = "__Host-toy=\(id); Path=/; Max-Age=600; HttpOnly; Secure; SameSite=Lax"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: page)))
        }
        router.post("/toy/sign-in") { request, _ -> Response in
            let fields = try await form(of: request)
            guard let id = cookie(of: request), let session = sessions.withLock({ $0[id] }), fields["csrf"] == session.csrf,
                fields["password"] == "secret"
            else { return json(.forbidden, ["error": "forbidden"]) }
            let code = SecureRandom.base64URLText(length: 22)
            codes.withLock { $0[code] = session.challenge }
            let signedIn = SecureRandom.base64URLText(length: 22)
            sessions.withLock {
                $0[id] = nil
                $0[signedIn] = Session(csrf: session.csrf, state: session.state, challenge: session.challenge, signedIn: true)
            }
            var headers: HTTPFields = [
                .location: "https://app.example/cb?" + FormEncoding.encode([("code", code), ("state", session.state)])
            ]
            headers[.setCookie] = "__Host-toy=\(signedIn); Path=/; HttpOnly; Secure; SameSite=Lax"
            return Response(status: .seeOther, headers: headers)
        }
        router.post("/toy/token") { request, _ -> Response in
            let fields = try await form(of: request)
            guard let code = fields["code"], let challenge = codes.withLock({ $0.removeValue(forKey: code) }),
                PKCE.verifier(fields["code_verifier"] ?? "", answers: challenge)
            else { return json(.badRequest, ["error": "invalid_grant"]) }
            return json(.ok, ["access_token": .string("toy-token-\(code.prefix(8))")])
        }
        router.post("/toy/go") { _, _ -> Response in
            Response(status: .seeOther, headers: [.location: "/toy/home"])
        }
        router.get("/toy/home") { request, _ -> Response in
            guard let id = cookie(of: request), sessions.withLock({ $0[id]?.signedIn }) == true else {
                return json(.unauthorized, ["error": "not_signed_in"])
            }
            return json(.ok, ["signed_in": true])
        }
    }
}
