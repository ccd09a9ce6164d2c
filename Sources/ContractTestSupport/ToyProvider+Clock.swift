import ContractKit
import Foundation
import Hummingbird
import NIOCore
import Synchronization

/// The toy's clock, for the tests of clock steps (`after:`): `POST /test/clock`
/// `{"advance": seconds}` moves it, `POST /session` issues a token that lives 60 seconds of
/// it, and `GET /session/{token}` answers 200 while the token lives, 401 after.
extension ToyProvider {
    /// A session, the token working, the token 61 seconds later (401), a new session.
    public static let clockContract = """
        name: Clock
        interactions:
          - name: a session starts
            request: { method: POST, path: /session }
            response: { status: 201, json: { token: { match: string, min_length: 3 }, expires_in: 60 } }
            save: { token: $.token }
          - name: the token works
            request: { method: GET, path: "/session/{{token}}" }
            response: { status: 200, json: { live: true } }
          - name: 61 seconds later it has expired
            after: 61s
            request: { method: GET, path: "/session/{{token}}" }
            response: { status: 401, json: { error: expired } }
          - name: a new session works at once
            request: { method: POST, path: /session }
            response: { status: 201, json: { token: { match: string, min_length: 3 }, expires_in: 60 } }
        """

    /// Adds the clock, the sessions and their check to `router`.
    static func addClockRoutes(to router: Router<BasicRequestContext>) {
        let clock = ToyClock()
        router.post("/test/clock") { request, _ -> Response in
            let data = try await request.body.collect(upTo: 1 << 16)
            guard case .object(let body) = try JSONValue(parsing: Data(buffer: data)), let advance = body["advance"]?.doubleValue,
                advance > 0
            else {
                return Response(status: .badRequest)
            }
            clock.offset.withLock { $0 += advance }
            return json(.ok, #"{"advanced":\#(advance)}"#)
        }
        router.post("/session") { _, _ -> Response in
            let token = clock.issue()
            return json(.created, #"{"token":"\#(token)","expires_in":60}"#)
        }
        router.get("/session/{token}") { _, context -> Response in
            guard let token = context.parameters.get("token"), let issued = clock.issued.withLock({ $0[token] }) else {
                return Response(status: .notFound)
            }
            return clock.now() - issued <= 60 ? json(.ok, #"{"live":true}"#) : json(.unauthorized, #"{"error":"expired"}"#)
        }
    }

    private static func json(_ status: HTTPResponse.Status, _ body: String) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}

/// The toy's time: the real one plus its steps, and when each token was issued.
private final class ToyClock: Sendable {
    let offset = Mutex<Double>(0)
    let issued = Mutex<[String: Double]>([:])

    func now() -> Double {
        Date().timeIntervalSince1970 + offset.withLock { $0 }
    }

    func issue() -> String {
        let token = "s-" + UUID().uuidString.lowercased()
        let time = now()
        issued.withLock { $0[token] = time }
        return token
    }
}
