import ContractKit
import Foundation
import Hummingbird
import JOSE
import NIOCore
import Synchronization
import WebAuthn

/// The toy's passkeys, for the tests of `webauthn_…` matchers: a relying party for
/// `example.com` (origin `https://example.com`) with authd's routes. Each options answer
/// issues a random challenge that the next ceremony of its kind uses once (the ceremony's
/// answer consumes it, right or wrong); a login checks the stored credential's signature and
/// that its counter moved forward, and stores the counter.
extension ToyProvider {
    /// The contract of the toy's passkeys: log in, registration options (saved whole), a
    /// registration by `mia-phone`, login options (saved whole), the passkey signs in (the
    /// credential saved), the same assertion again (401), a malformed credential (400).
    public static let webAuthnContract = """
        name: Passkeys
        interactions:
          - name: login gives a token
            request: { method: POST, path: /login, json: { username: alice, password: secret } }
            response: { status: 200, json: { access_token: { match: string, min_length: 3 }, token_type: Bearer, expires_in: { match: integer, min: 1 } } }
            save: { token: $.access_token }
          - name: registration options
            request: { method: POST, path: /webauthn/register/options, headers: { Authorization: "Bearer {{token}}" }, json: {} }
            response:
              status: 200
              json:
                rp: { id: example.com, name: Toy }
                user: { id: { match: string, min_length: 43, max_length: 43 }, name: alice, displayName: alice }
                challenge: { match: string, min_length: 43, max_length: 43 }
                pubKeyCredParams: [{ type: public-key, alg: -8 }, { type: public-key, alg: -7 }, { type: public-key, alg: -257 }]
                timeout: 300000
                excludeCredentials: []
                authenticatorSelection: { residentKey: required, requireResidentKey: true, userVerification: preferred }
                attestation: none
                extensions: { credProps: true }
            save: { creation: $ }
          - name: a passkey is registered
            request:
              method: POST
              path: /webauthn/register
              headers: { Authorization: "Bearer {{token}}" }
              json:
                credential: { match: webauthn_registration, options: "{{creation}}", origin: "https://example.com", authenticator: mia-phone }
                name: Mia's phone
            response:
              status: 201
              json:
                id: { match: string, min_length: 1 }
                name: Mia's phone
                created_at: { match: datetime }
                last_used_at: null
                transports: [internal]
                backed_up: false
          - name: login options
            request: { method: POST, path: /webauthn/login/options, json: {} }
            response:
              status: 200
              json:
                challenge: { match: string, min_length: 43, max_length: 43 }
                timeout: 300000
                rpId: example.com
                allowCredentials: []
                userVerification: preferred
            save: { request: $ }
          - name: the passkey signs in
            request:
              method: POST
              path: /webauthn/login
              json: { credential: { match: webauthn_assertion, options: "{{request}}", origin: "https://example.com", authenticator: mia-phone } }
            response: { status: 200, json: { access_token: { match: string, min_length: 3 }, token_type: Bearer, expires_in: { match: integer, min: 1 } } }
            save: { used: request.json.credential }
          - name: the same assertion again is refused
            request: { method: POST, path: /webauthn/login, json: { credential: "{{used}}" } }
            response: { status: 401, json: { error: invalid_credentials } }
          - name: a malformed credential is refused
            request: { method: POST, path: /webauthn/login, json: { credential: { id: x } } }
            response: { status: 400, json: { error: invalid_request } }
        """

    /// The toy's relying party.
    static let relyingParty = WebAuthnRelyingParty(id: "example.com", name: "Toy", origins: ["https://example.com"])

    /// What the toy keeps: the challenge each ceremony may answer, the passkeys.
    private struct Passkeys {
        var registrationChallenge: Data?
        var loginChallenge: Data?
        var credentials: [Data: WebAuthnCredentialRecord] = [:]
        let userHandle = ToyProvider.randomBytes(32)
    }

    /// Adds the passkey routes to `router`.
    static func addWebAuthnRoutes(to router: Router<BasicRequestContext>) {
        let passkeys = Mutex(Passkeys())
        router.post("/webauthn/register/options") { request, _ -> Response in
            guard request.headers[.authorization] == "Bearer tok-123" else { return json(.unauthorized, ["error": "invalid_token"]) }
            guard let body = try await object(request), body.isEmpty else { return json(.badRequest, ["error": "invalid_request"]) }
            let challenge = randomBytes(32)
            let handle = passkeys.withLock { passkeys in
                passkeys.registrationChallenge = challenge
                return passkeys.userHandle
            }
            return try encoded(
                relyingParty.creationOptions(challenge: challenge, user: .init(id: handle, name: "alice", displayName: "alice")))
        }
        router.post("/webauthn/register") { request, _ -> Response in
            guard request.headers[.authorization] == "Bearer tok-123" else { return json(.unauthorized, ["error": "invalid_token"]) }
            guard let body = try await object(request), Set(body.keys).isSubset(of: ["credential", "name"]),
                let credential = body["credential"],
                let response = try? WebAuthnJSON.decode(RegistrationResponseJSON.self, from: Data(credential.description.utf8))
            else {
                return json(.badRequest, ["error": "invalid_request"])
            }
            var name = "Passkey"
            if let given = body["name"] {
                guard case .string(let text) = given, !text.isEmpty else { return json(.badRequest, ["error": "invalid_request"]) }
                name = text
            }
            let verified = passkeys.withLock { passkeys -> VerifiedCredential? in
                guard let challenge = passkeys.registrationChallenge else { return nil }
                passkeys.registrationChallenge = nil
                guard let verified = try? relyingParty.verifyRegistration(response, expectedChallenge: challenge),
                    passkeys.credentials[verified.id] == nil
                else {
                    return nil
                }
                passkeys.credentials[verified.id] = verified.record(userHandle: passkeys.userHandle)
                return verified
            }
            guard let verified else { return json(.unauthorized, ["error": "invalid_credentials"]) }
            return json(
                .created,
                [
                    "id": .string(Base64URL.encode(verified.id)), "name": .string(name),
                    "created_at": .string(DateTimeFormat.string(from: Date())),
                    "last_used_at": .null, "transports": .array(verified.transports.map(JSONValue.string)),
                    "backed_up": .bool(verified.isBackedUp),
                ]
            )
        }
        router.post("/webauthn/login/options") { request, _ -> Response in
            guard let body = try await object(request), body.isEmpty else { return json(.badRequest, ["error": "invalid_request"]) }
            let challenge = randomBytes(32)
            passkeys.withLock { $0.loginChallenge = challenge }
            return try encoded(relyingParty.requestOptions(challenge: challenge))
        }
        router.post("/webauthn/login") { request, _ -> Response in
            guard let body = try await object(request), body.count == 1, let credential = body["credential"],
                let response = try? WebAuthnJSON.decode(AuthenticationResponseJSON.self, from: Data(credential.description.utf8))
            else {
                return json(.badRequest, ["error": "invalid_request"])
            }
            let accepted = passkeys.withLock { passkeys -> Bool in
                guard let challenge = passkeys.loginChallenge else { return false }
                passkeys.loginChallenge = nil
                guard let record = passkeys.credentials[response.rawId],
                    let assertion = try? relyingParty.verifyAuthentication(response, expectedChallenge: challenge, credential: record),
                    !assertion.signCountRegressed
                else { return false }
                passkeys.credentials[response.rawId]?.signCount = assertion.signCount
                return true
            }
            guard accepted else { return json(.unauthorized, ["error": "invalid_credentials"]) }
            return json(.ok, ["access_token": "tok-passkey", "token_type": "Bearer", "expires_in": 900])
        }
    }

    /// The request's JSON object body; nil for anything else (another media type, not JSON,
    /// not an object, over 64 KiB).
    private static func object(_ request: Request) async throws -> [String: JSONValue]? {
        guard request.headers[.contentType]?.hasPrefix("application/json") == true else { return nil }
        // Room for probe's oversized body, which is then refused as any malformed one.
        let data = try await request.body.collect(upTo: 1 << 21)
        guard data.readableBytes <= 1 << 16, case .object(let members)? = try? JSONValue(parsing: Data(buffer: data)) else { return nil }
        return members
    }

    /// `value` as a 200 JSON answer.
    private static func encoded(_ value: some Encodable) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Response(
            status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }

    private static func randomBytes(_ count: Int) -> Data {
        Data(SecureRandom.bytes(count))
    }
}
