import ContractKit
import Foundation
import Hummingbird
import NIOCore
import WebForms

/// The toy's form and multipart routes, for the tests of `form:`, `multipart:` and
/// `basic_auth`: `POST /oauth/token` takes client credentials (`client-1` / `s3cret`) and a
/// form with `grant_type=client_credentials` and an optional `scope`, answering JSON;
/// `POST /login/oauth/access_token` takes a form with one `code` and answers a form (as
/// GitHub's does); `POST /notes` takes a multipart note with a JSON `meta` part. Bad input of
/// any kind is a 400 (401 for wrong credentials) in the one JSON error shape.
extension ToyProvider {
    /// The contract of the routes above.
    public static let oauthContract = """
        name: OAuth
        interactions:
          - name: a client gets a token with its credentials
            request:
              method: POST
              path: /oauth/token
              headers: { Authorization: { match: basic_auth, username: client-1, password: s3cret } }
              form:
                grant_type: client_credentials
                scope: { match: string, example: read, optional: true }
            response:
              status: 200
              json: { access_token: { match: string, min_length: 8 }, token_type: Bearer }
            save: { token: $.access_token }
          - name: a wrong client secret is refused
            request:
              method: POST
              path: /oauth/token
              headers: { Authorization: { match: basic_auth, username: client-1, password: wrong-secret } }
              form: { grant_type: client_credentials }
            response: { status: 401, json: { error: invalid_client } }
          - name: another grant is refused
            request:
              method: POST
              path: /oauth/token
              headers: { Authorization: { match: basic_auth, username: client-1, password: s3cret } }
              form: { grant_type: password }
            response: { status: 400, json: { error: unsupported_grant_type } }
          - name: the code endpoint answers a form
            request:
              method: POST
              path: /login/oauth/access_token
              form: { code: "{{token}}" }
            response:
              status: 200
              form:
                access_token: { match: string, min_length: 8 }
                token_type: bearer
            save: { legacy: response.form.access_token, code: request.form.code }
          - name: a note with its metadata is posted
            request:
              method: POST
              path: /notes
              multipart:
                - name: text
                  body: { match: string, min_length: 1, example: remember the milk }
                - name: meta
                  json: { pinned: true }
            response: { status: 201, json: { id: { match: integer } } }
        """

    /// Adds the routes to `router`.
    static func addOAuthRoutes(to router: Router<BasicRequestContext>) {
        router.post("/oauth/token") { request, _ -> Response in
            guard let credentials = request.headers[.authorization].flatMap(BasicCredentials.decode) else {
                return json(.unauthorized, ["error": "invalid_client"])
            }
            guard credentials.username == "client-1", credentials.password == "s3cret" else {
                return json(.unauthorized, ["error": "invalid_client"])
            }
            guard let fields = try await form(request, allowed: ["grant_type", "scope"], required: ["grant_type"]) else {
                return json(.badRequest, ["error": "invalid_request"])
            }
            guard fields["grant_type"] == "client_credentials" else { return json(.badRequest, ["error": "unsupported_grant_type"]) }
            return json(.ok, ["access_token": "tok-oauth-123", "token_type": "Bearer"])
        }
        router.post("/login/oauth/access_token") { request, _ -> Response in
            guard let fields = try await form(request, allowed: ["code"], required: ["code"]), fields["code"] == "tok-oauth-123" else {
                return json(.badRequest, ["error": "invalid_request"])
            }
            let body = FormEncoding.encode([("access_token", "gho-legacy-456"), ("token_type", "bearer")])
            return Response(status: .ok, headers: [.contentType: FormBody.contentType], body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        router.post("/notes") { request, _ -> Response in
            let data = Data(buffer: try await request.body.collect(upTo: 1 << 21))
            guard let boundary = MultipartEncoding.boundary(in: request.headers[.contentType]),
                let parts = try? MultipartEncoding.decode(data, boundary: boundary), parts.map(\.name).sorted() == ["meta", "text"],
                let text = parts.first(where: { $0.name == "text" }), !text.body.isEmpty,
                let meta = parts.first(where: { $0.name == "meta" }), case .object? = try? JSONValue(parsing: meta.body)
            else {
                return json(.badRequest, ["error": "invalid_request"])
            }
            return json(.created, ["id": 1])
        }
    }

    /// The fields of a form request: each field once, only `allowed` ones, the `required` ones
    /// there and not empty; nil when the request is not such a form.
    private static func form(_ request: Request, allowed: Set<String>, required: Set<String>) async throws -> [String: String]? {
        // Room for probe's oversized body, which is then refused as any malformed one.
        let data = try await request.body.collect(upTo: 1 << 21)
        guard FormEncoding.isForm(contentType: request.headers[.contentType]), let fields = FormEncoding.decode(Data(buffer: data)) else {
            return nil
        }
        var values: [String: String] = [:]
        for field in fields {
            guard allowed.contains(field.name), values[field.name] == nil, !field.value.isEmpty else { return nil }
            values[field.name] = field.value
        }
        return required.isSubset(of: values.keys) ? values : nil
    }
}
