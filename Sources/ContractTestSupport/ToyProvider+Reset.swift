import ContractKit
import Foundation
import Hummingbird
import JOSE
import NIOCore
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The toy's password reset, for the tests of deliveries: `POST /password/reset` answers 202
/// and delivers a random token to the delivery URL it was given (`POST URL/deliveries`),
/// and `POST /password/reset/confirm` accepts that token once.
extension ToyProvider {
    /// What the toy's reset delivers.
    public enum ResetDelivery: Sendable {
        /// `{"kind": "password_reset", "token": "<64 hex>", "username": …}` with a `Toy-Signature`.
        case correct
        /// The same with a number for the token: a delivery of the wrong shape.
        case malformed
        /// Nothing.
        case none
    }

    /// The contract of the toy's reset for `username`: the request, the delivery it causes
    /// (saving the token), and the token carried back. The deadline is generous by default:
    /// a delivery that arrives is claimed at once, and a full test run on two cores can be slow.
    public static func resetContract(username: String = "alice", within: Double = 30) -> String {
        """
        name: Reset \(username)
        interactions:
          - name: a reset is requested for \(username)
            request: { method: POST, path: /password/reset, json: { username: \(username) } }
            response: { status: 202 }
            delivers:
              - path: /deliveries
                headers: { Toy-Signature: { match: regex, pattern: "v1=[0-9a-f]{64}", example: "v1=\(String(repeating: "0", count: 64))" } }
                json: { kind: password_reset, token: { match: string, min_length: 32 }, username: \(username) }
                within: \(within)
                save: { reset: $.token }
          - name: the delivered token resets \(username)'s password
            request: { method: POST, path: /password/reset/confirm, json: { token: "{{reset}}", new_password: a new passphrase } }
            response: { status: 204 }
        """
    }

    /// Adds the reset routes to `router`; deliveries go to `deliveryURL` + `/deliveries`.
    static func addResetRoutes(to router: Router<BasicRequestContext>, deliveryURL: String?, delivery: ResetDelivery) {
        let tokens = Mutex<[String: String]>([:])
        router.post("/password/reset") { request, _ -> Response in
            let data = try await request.body.collect(upTo: 1 << 16)
            guard case .string(let username)? = try JSONValue(parsing: Data(buffer: data))["username"] else {
                return Response(status: .badRequest)
            }
            let token = SecureRandom.bytes(32).map { String(format: "%02x", $0) }.joined()
            tokens.withLock { $0[token] = username }
            if let deliveryURL, delivery != .none {
                let body: JSONValue = [
                    "kind": "password_reset", "token": delivery == .malformed ? .integer(42) : .string(token),
                    "username": .string(username),
                ]
                // After the answer, as an outbox would.
                Task { await post(body, to: deliveryURL + "/deliveries") }
            }
            return Response(status: .accepted)
        }
        router.post("/password/reset/confirm") { request, _ -> Response in
            let data = try await request.body.collect(upTo: 1 << 16)
            guard case .string(let token)? = try JSONValue(parsing: Data(buffer: data))["token"],
                tokens.withLock({ $0.removeValue(forKey: token) }) != nil
            else {
                return Response(
                    status: .badRequest, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: #"{"error":"invalid_token"}"#)))
            }
            return Response(status: .noContent)
        }
    }

    private static func post(_ body: JSONValue, to url: String) async {
        guard let target = URL(string: url) else { return }
        var request = URLRequest(url: target)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("v1=" + String(repeating: "ab", count: 32), forHTTPHeaderField: "Toy-Signature")
        request.httpBody = Data(body.description.utf8)
        _ = try? await URLSession.shared.data(for: request)
    }
}
