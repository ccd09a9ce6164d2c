import ContractKit
import ContractStub
import Foundation
import JOSE
import Synchronization
import WebForms

/// The OpenID provider a `contract verify` run plays for the service under test, served by
/// its ``DeliveryReceiver`` (issuer: the receiver's URL, `{{delivery_url}}`):
///
/// - `GET /.well-known/openid-configuration` and `GET /jwks`: its discovery document and keys.
/// - `GET /authorize`: signs in its test user without a page (`sub` is the request's
///   `login_hint`, else `contract-user`; a hint that is an email address is also the user's
///   verified `email`), then redirects to the `redirect_uri` with a code,
///   the `state` and `iss` (RFC 9207). A request without `client_id`, a `redirect_uri`,
///   `response_type=code` or an S256 PKCE challenge gets a 400.
/// - `POST /token`: the code once, for its client and redirect URI, with the verifier of its
///   challenge (RFC 7636 §4.6), for an ID token carrying the request's `nonce`. Any client
///   secret is taken, the run's provider being a test double of a real one.
///
/// The run's requests also carry ID tokens it signs (`{ match: jwt, signed: true }`): EdDSA
/// under a key of the run's, `iss` its URL, `iat` now, `exp` in ten minutes and a fresh `jti`
/// where the contract's claims allow them, the contract's claims otherwise. A provider state
/// adds it to the service as an upstream provider (authd's: `authd provider add … --issuer
/// {{delivery_url}}`), and a browser flow that follows redirects (`follow_redirects: true`)
/// goes through its authorization endpoint as a browser would.
///
/// ```swift
/// let provider = RunIdentityProvider(issuer: "http://127.0.0.1:4000")
/// let token = try provider.jwt(claims: ["aud": Matcher(.literal(.string("notes-app")))], at: "$.id_token")
/// ```
public struct RunIdentityProvider: TokenMinter {
    /// Its issuer identifier: the receiver's URL.
    public let issuer: String
    private let signer = StubSigner()
    private let codes = Codes()

    /// What a code it gave stands for, until it is redeemed or ten minutes pass.
    private struct Grant {
        let clientID: String
        let redirectURI: String
        let challenge: String
        let nonce: String?
        let subject: String
        let expires: Date
    }

    private final class Codes: Sendable {
        let grants = Mutex<[String: Grant]>([:])
    }

    /// A provider with a fresh key, named `issuer`.
    public init(issuer: String) {
        self.issuer = issuer
    }

    public func jwt(claims: [String: Matcher], at path: String) throws -> JSONValue {
        var token = signer.claims(subject: "contract-user", lifetime: 600)
        token["iss"] = .string(issuer)
        for (name, claim) in claims.sorted(by: { $0.key < $1.key }) {
            if let standard = token[name], claim.mismatches(in: standard).isEmpty { continue }
            token[name] = try claim.sampleValue(at: "\(path).\(name)")
        }
        return .string(signer.token(claims: token))
    }

    public var jwks: JSONValue { signer.jwks }

    /// Its discovery document (OpenID Connect Discovery §3).
    public var discoveryDocument: JSONValue {
        .object([
            "issuer": .string(issuer), "authorization_endpoint": .string(issuer + "/authorize"),
            "token_endpoint": .string(issuer + "/token"), "jwks_uri": .string(issuer + "/jwks"),
            "response_types_supported": ["code"], "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["EdDSA"], "code_challenge_methods_supported": ["S256"],
            "grant_types_supported": ["authorization_code"], "scopes_supported": ["openid"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
            "authorization_response_iss_parameter_supported": true,
        ])
    }

    /// What one of its endpoints answers.
    public struct Answer: Sendable {
        public let status: Int
        public let location: String?
        public let json: JSONValue?
    }

    /// `GET /authorize` with `query`: the test user signed in, sent back with a code.
    public func authorize(_ query: [(name: String, value: String)], now: Date = Date()) -> Answer {
        let values = Dictionary(query, uniquingKeysWith: { first, _ in first })
        guard values["response_type"] == "code", let clientID = values["client_id"], !clientID.isEmpty,
            let redirectURI = values["redirect_uri"], URL(string: redirectURI)?.scheme != nil,
            values["code_challenge_method"] == "S256", let challenge = values["code_challenge"], PKCE.isChallenge(challenge)
        else {
            return Self.error(400, "invalid_request", "response_type=code, client_id, redirect_uri and an S256 code_challenge are needed")
        }
        let code = SecureRandom.base64URLText(length: 32)
        let grant = Grant(
            clientID: clientID, redirectURI: redirectURI, challenge: challenge, nonce: values["nonce"],
            subject: values["login_hint"].flatMap { $0.isEmpty ? nil : $0 } ?? "contract-user", expires: now.addingTimeInterval(600))
        codes.grants.withLock { $0[code] = grant }
        var answer = [("code", code), ("iss", issuer)]
        if let state = values["state"] { answer.append(("state", state)) }
        let separator = redirectURI.contains("?") ? "&" : "?"
        return Answer(status: 302, location: redirectURI + separator + FormEncoding.encode(answer), json: nil)
    }

    /// `POST /token` with `form` (and `authorization`, HTTP Basic client credentials if sent).
    public func token(_ form: [(name: String, value: String)], authorization: String?, now: Date = Date()) -> Answer {
        let values = Dictionary(form, uniquingKeysWith: { first, _ in first })
        guard values["grant_type"] == "authorization_code" else {
            return Self.error(400, "unsupported_grant_type", "only authorization_code")
        }
        let clientID = values["client_id"] ?? authorization.flatMap(BasicCredentials.decode)?.username
        guard let code = values["code"], let grant = codes.grants.withLock({ $0.removeValue(forKey: code) }), grant.expires > now,
            grant.clientID == clientID, grant.redirectURI == values["redirect_uri"],
            PKCE.verifier(values["code_verifier"] ?? "", answers: grant.challenge)
        else {
            return Self.error(
                400, "invalid_grant", "the code is unknown, used, expired, or not this client's, redirect URI's or verifier's")
        }
        var claims = signer.claims(subject: grant.subject, lifetime: 600, now: now)
        claims["iss"] = .string(issuer)
        claims["aud"] = .string(grant.clientID)
        if let nonce = grant.nonce { claims["nonce"] = .string(nonce) }
        // A hint that is an address is the test user's verified email too (to link to an account of it).
        if grant.subject.contains("@") {
            claims["email"] = .string(grant.subject)
            claims["email_verified"] = true
        }
        return Answer(
            status: 200, location: nil,
            json: [
                "access_token": .string(SecureRandom.base64URLText(length: 32)), "token_type": "Bearer", "expires_in": 600,
                "id_token": .string(signer.token(claims: claims)),
            ])
    }

    private static func error(_ status: Int, _ code: String, _ description: String) -> Answer {
        Answer(status: status, location: nil, json: ["error": .string(code), "error_description": .string(description)])
    }
}
