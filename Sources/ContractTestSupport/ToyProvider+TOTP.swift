import ContractKit
import Foundation
import Hummingbird
import JOSE
import NIOCore
import Synchronization

/// The toy's TOTP second factor, for the tests of `totp` matchers: `POST /mfa/totp` enrols a
/// random key and answers it in base32, and `POST /login/mfa` takes `{"code": "123456"}`: a
/// code of that key within one 30-second step of now, once (a step at or before the last
/// one it accepted is refused, as authd does).
extension ToyProvider {
    /// The contract of the toy's TOTP: the enrolment (saving the secret), a code sent and
    /// saved, another code soon after, the first code replayed (401), a wrong code (401).
    public static let totpContract = """
        name: TOTP
        interactions:
          - name: a TOTP key is enrolled
            request: { method: POST, path: /mfa/totp }
            response:
              status: 200
              json:
                secret: { match: regex, pattern: "[A-Z2-7]{32}", example: JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP }
                otpauth_uri: { match: regex, pattern: "otpauth://totp/.+", example: "otpauth://totp/Toy:alice?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Toy" }
            save: { totp_secret: $.secret }
          - name: a code of the key logs in
            request: { method: POST, path: /login/mfa, json: { code: { match: totp, secret: "{{totp_secret}}" } } }
            response: { status: 200, json: { access_token: { match: string, min_length: 3 } } }
            save: { used: request.json.code }
          - name: another code soon after logs in too
            request: { method: POST, path: /login/mfa, json: { code: { match: totp, secret: "{{totp_secret}}" } } }
            response: { status: 200, json: { access_token: { match: string, min_length: 3 } } }
          - name: the first code again is refused
            request: { method: POST, path: /login/mfa, json: { code: "{{used}}" } }
            response: { status: 401, json: { error: invalid_code } }
          - name: a wrong code is refused
            request: { method: POST, path: /login/mfa, json: { code: { match: regex, pattern: "[0-9]{6}", example: "000000" } } }
            response: { status: 401, json: { error: invalid_code } }
        """

    /// The toy's one TOTP key, and the last step it accepted.
    private struct Enrolment {
        var totp: TOTP?
        var lastStep: Int64?
    }

    /// Adds the TOTP routes to `router`.
    static func addTOTPRoutes(to router: Router<BasicRequestContext>) {
        let enrolment = Mutex(Enrolment())
        router.post("/mfa/totp") { _, _ -> Response in
            let secret = Base32.encode(SecureRandom.bytes(20))
            let totp = try TOTP(secret: secret)
            enrolment.withLock { $0 = Enrolment(totp: totp, lastStep: nil) }
            let body: JSONValue = [
                "secret": .string(secret), "otpauth_uri": .string("otpauth://totp/Toy:alice?secret=\(secret)&issuer=Toy"),
            ]
            return json(.ok, body)
        }
        router.post("/login/mfa") { request, _ -> Response in
            // Room for probe's oversized body, which is then refused as any malformed one.
            let data = try await request.body.collect(upTo: 1 << 21)
            guard case .object(let members)? = try? JSONValue(parsing: Data(buffer: data)), members.count == 1,
                case .string(let code)? = members["code"], code.utf8.count == 6, code.utf8.allSatisfy({ (0x30...0x39).contains($0) })
            else {
                return json(.badRequest, ["error": "invalid_request"])
            }
            let accepted = enrolment.withLock { enrolment -> Bool in
                guard let totp = enrolment.totp, let step = totp.step(of: code, near: Date()), step > (enrolment.lastStep ?? .min) else {
                    return false
                }
                enrolment.lastStep = step
                return true
            }
            return accepted ? json(.ok, ["access_token": "tok-mfa"]) : json(.unauthorized, ["error": "invalid_code"])
        }
    }

    /// A JSON answer.
    static func json(_ status: HTTPResponse.Status, _ body: JSONValue) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: body.description)))
    }
}
