import ContractKit
import Foundation
import Hummingbird
import JOSE
import NIOCore
import Synchronization

/// A provider for the tests of request matchers, `record` and `probe`: a login that issues a
/// JWT and a refresh token, notes with UUIDs and creation times behind that token, and one
/// error shape (`{"error", "error_description"}`) for every bad input. ``contract``
/// describes it with request matchers.
///
/// `broken` makes it a provider `contract probe` must catch: a note without a title crashes
/// it (500) and a title of the wrong type gets an error in another shape (`{"message"}`).
///
/// ```swift
/// try await NotesProvider.withRunning { baseURL in … }
/// ```
public enum NotesProvider {
    /// Its contract: log in, make a note with a title the client picks, read it back with the
    /// id the provider gave it, and the declared errors.
    public static let contract = """
        name: Notes
        interactions:
          - name: a login gives tokens
            request:
              method: POST
              path: /login
              json: { username: { match: string, min_length: 1, example: alice }, password: secret }
            response:
              status: 200
              json:
                access_token: { match: jwt, claims: { sub: { match: uuid } } }
                token_type: Bearer
                expires_in: { match: integer, min: 1, example: 900 }
                refresh_token: { match: string, min_length: 43 }
            save: { token: $.access_token, user: request.json.username }
          - name: a note is made with any title
            request:
              method: POST
              path: /notes
              headers: { Authorization: "Bearer {{token}}" }
              json: { title: { match: string, min_length: 1, max_length: 200, example: Groceries } }
            response:
              status: 201
              json: { id: { match: uuid }, title: "{{title}}", owner: "{{user}}", created_at: { match: datetime } }
            save: { note: $.id, title: request.json.title }
          - name: the note is read back by its id
            request:
              method: GET
              path: /notes/{{note}}
              headers: { Authorization: "Bearer {{token}}" }
            response:
              status: 200
              json: { id: "{{note}}", title: "{{title}}", owner: "{{user}}", created_at: { match: datetime } }
          - name: an unknown note is not found
            request:
              method: GET
              path: '/notes/{id}'
              path_params: { id: { match: uuid } }
              headers: { Authorization: "Bearer {{token}}" }
            response:
              status: 404
              json: { error: not_found, error_description: { match: string } }
          - name: a note without a title is refused
            request:
              method: POST
              path: /notes
              headers: { Authorization: "Bearer {{token}}" }
              json: {}
            response:
              status: 400
              json: { error: invalid_request, error_description: title is required }
          - name: a wrong password is refused
            request:
              method: POST
              path: /login
              json: { username: alice, password: wrong }
            response:
              status: 401
              json: { error: invalid_credentials, error_description: { match: string } }
        """

    private struct State {
        var tokens: [String: String] = [:]
        var notes: [String: JSONValue] = [:]
    }

    private final class Store: Sendable {
        let state = Mutex(State())
    }

    /// Serves the provider on a free port until `body` returns.
    public static func withRunning<T: Sendable>(broken: Bool = false, _ body: @Sendable (String) async throws -> T) async throws -> T {
        let store = Store()
        let router = Router()
        router.post("/login") { request, _ -> Response in
            let json: [String: JSONValue]
            switch await read(request, fields: ["username", "password"]) {
            case .failure(let refusal): return refusal.response
            case .success(let object): json = object
            }
            guard json["password"] == .string("secret"), case .string(let username)? = json["username"] else {
                return error(.unauthorized, "invalid_credentials", "The username or password is incorrect.")
            }
            let token = jwt(subject: UUID().uuidString.lowercased())
            store.state.withLock { $0.tokens[token] = username }
            let refresh = Base64URL.encode(Data(SecureRandom.bytes(32)))
            return reply(
                .ok,
                .object([
                    "access_token": .string(token), "token_type": .string("Bearer"), "expires_in": .integer(900),
                    "refresh_token": .string(refresh),
                ]))
        }
        router.post("/notes") { request, _ -> Response in
            guard let owner = owner(of: request, store) else {
                return error(.unauthorized, "invalid_token", "A valid bearer token is required.")
            }
            let json: [String: JSONValue]
            switch await read(request, fields: ["title"]) {
            case .failure(let refusal):
                if broken, case .missing = refusal {
                    return Response(status: .internalServerError, body: .init(byteBuffer: ByteBuffer(string: "Internal Server Error")))
                }
                if broken, case .wrongType = refusal { return reply(.badRequest, .object(["message": .string("bad title")])) }
                return refusal.response
            case .success(let object): json = object
            }
            let note = JSONValue.object([
                "id": .string(UUID().uuidString.lowercased()), "title": json["title"] ?? .null, "owner": .string(owner),
                "created_at": .string(DateTimeFormat.string(from: Date())),
            ])
            if case .string(let id)? = note["id"] { store.state.withLock { $0.notes[id] = note } }
            return reply(.created, note)
        }
        router.get("/notes/:id") { request, context -> Response in
            guard owner(of: request, store) != nil else {
                return error(.unauthorized, "invalid_token", "A valid bearer token is required.")
            }
            guard let id = context.parameters.get("id"), let note = store.state.withLock({ $0.notes[id] }) else {
                return error(.notFound, "not_found", "There is no such note.")
            }
            return reply(.ok, note)
        }
        return try await EphemeralServer.withRunning(router, body)
    }

    /// Why a body was refused.
    private enum Refusal: Error {
        case mediaType, tooLarge, notJSON, notAnObject, unknown(String), missing(String), null(String), wrongType(String), empty(String),
            tooLong(String)

        var response: Response {
            switch self {
            case .mediaType: error(.unsupportedMediaType, "unsupported_media_type", "Send application/json.")
            case .tooLarge: error(.contentTooLarge, "request_too_large", "The body is over 16 KiB.")
            case .notJSON: error(.badRequest, "invalid_request", "The request body is not valid JSON.")
            case .notAnObject: error(.badRequest, "invalid_request", "The request body must be a JSON object.")
            case .unknown(let name): error(.badRequest, "invalid_request", "\(name) is not a known field")
            case .missing(let name): error(.badRequest, "invalid_request", "\(name) is required")
            case .null(let name): error(.badRequest, "invalid_request", "\(name) must not be null")
            case .wrongType(let name): error(.badRequest, "invalid_request", "\(name) must be a string")
            case .empty(let name): error(.badRequest, "invalid_request", "\(name) must not be empty")
            case .tooLong(let name): error(.badRequest, "invalid_request", "\(name) must be at most 200 characters")
            }
        }
    }

    /// A JSON object of non-empty strings of at most 200 characters, with exactly `fields`.
    private static func read(_ request: Request, fields: [String]) async -> Result<[String: JSONValue], Refusal> {
        guard request.headers[.contentType]?.hasPrefix("application/json") == true else { return .failure(.mediaType) }
        guard let buffer = try? await request.body.collect(upTo: 16 * 1024) else { return .failure(.tooLarge) }
        guard let json = try? JSONValue(parsing: Data(buffer: buffer)) else { return .failure(.notJSON) }
        guard case .object(let object) = json else { return .failure(.notAnObject) }
        if let unknown = object.keys.sorted().first(where: { !fields.contains($0) }) { return .failure(.unknown(unknown)) }
        for field in fields {
            switch object[field] {
            case nil: return .failure(.missing(field))
            case .null?: return .failure(.null(field))
            case .string(let text)?:
                if text.isEmpty { return .failure(.empty(field)) }
                if text.count > 200 { return .failure(.tooLong(field)) }
            default: return .failure(.wrongType(field))
            }
        }
        return .success(object)
    }

    private static func owner(of request: Request, _ store: Store) -> String? {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { return nil }
        let token = String(header.dropFirst("Bearer ".count))
        return store.state.withLock { $0.tokens[token] }
    }

    /// A compact JWT (its signature is random: the contracts check its shape and claims).
    private static func jwt(subject: String) -> String {
        let now = Int(Date().timeIntervalSince1970)
        let header = JSONValue.object(["alg": .string("HS256"), "typ": .string("JWT")])
        let claims = JSONValue.object(["sub": .string(subject), "iat": .integer(now), "exp": .integer(now + 900)])
        let signature = Data(SecureRandom.bytes(32))
        return CompactJWS.serialize(header: Data(header.description.utf8), payload: Data(claims.description.utf8)) { _ in signature }
    }

    private static func reply(_ status: HTTPResponse.Status, _ body: JSONValue) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: body.description)))
    }

    private static func error(_ status: HTTPResponse.Status, _ code: String, _ description: String) -> Response {
        reply(status, .object(["error": .string(code), "error_description": .string(description)]))
    }
}
