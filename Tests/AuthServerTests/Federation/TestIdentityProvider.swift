import AsyncHTTPClient
import AuthCore
import AuthPostgres
import AuthServer
import AuthTestSupport
import ContractTestSupport
import Crypto
import Foundation
import Hummingbird
import JOSE
import Synchronization
import WebForms
import _CryptoExtras

/// An OpenID provider of the tests' own, over real HTTP on 127.0.0.1: its discovery
/// document and its keys (RSA, P-256, Ed25519), and ID tokens it signs as told, well-formed
/// or not (another audience, an expired one, `alg: none`, an HMAC keyed with its public
/// key…). It counts the fetches of its keys. Its token endpoint exchanges the codes it was
/// given (``issueCode(for:refreshToken:)``) and its revocation endpoint records what it is
/// sent (answering 503 while told to refuse), with the client's credentials, as Apple's do.
final class TestIdentityProvider: Sendable {
    let rsa = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    let p256 = P256.Signing.PrivateKey()
    let ed25519 = Curve25519.Signing.PrivateKey()
    private let fetches = Mutex(0)
    /// The `kid`s published, and whether keys go out without one.
    private let published = Mutex((kids: ["rsa-1", "ec-1", "ed-1"], withoutKID: false))
    private let codes = Mutex<[String: (idToken: String, refreshToken: String)]>([:])
    private let tokenRequests = Mutex<[[String: String]]>([])
    private let revocationRequests = Mutex<[[String: String]]>([])
    private let refusingRevocations = Mutex(false)

    /// A single-use code the token endpoint exchanges for `idToken` and `refreshToken`.
    func issueCode(for idToken: String, refreshToken: String = "r." + UUID().uuidString) -> String {
        let code = "c." + UUID().uuidString
        codes.withLock { $0[code] = (idToken, refreshToken) }
        return code
    }

    /// The forms posted to the token endpoint, oldest first.
    var tokenForms: [[String: String]] { tokenRequests.withLock { $0 } }
    /// The forms posted to the revocation endpoint and answered 200, oldest first.
    var revocationForms: [[String: String]] { revocationRequests.withLock { $0 } }
    /// Makes the revocation endpoint answer 503 while `refusing`.
    func refuseRevocations(_ refusing: Bool) { refusingRevocations.withLock { $0 = refusing } }

    static let audience = "com.example.ios"
    static let rawNonce = "a raw nonce the app keeps"

    /// How many times its keys were fetched.
    var keyFetches: Int { fetches.withLock { $0 } }

    /// Publishes only the keys named (and, with `withoutKID`, without their `kid`s).
    func publish(_ kids: [String], withoutKID: Bool = false) {
        published.withLock { $0 = (kids, withoutKID) }
    }

    /// The JWK of the key `kid`.
    func jwk(_ kid: String, named: Bool = true) -> [String: String] {
        var jwk: [String: String]
        switch kid {
        case "rsa-1":
            let primitives = try! rsa.publicKey.getKeyPrimitives()
            jwk = [
                "kty": "RSA", "alg": "RS256", "n": Base64URL.encode(primitives.modulus), "e": Base64URL.encode(primitives.publicExponent),
            ]
        case "ec-1":
            let raw = p256.publicKey.rawRepresentation
            jwk = [
                "kty": "EC", "crv": "P-256", "alg": "ES256", "x": Base64URL.encode(raw.prefix(32)), "y": Base64URL.encode(raw.suffix(32)),
            ]
        default:
            jwk = ["kty": "OKP", "crv": "Ed25519", "alg": "EdDSA", "x": Base64URL.encode(ed25519.publicKey.rawRepresentation)]
        }
        if named { jwk["kid"] = kid }
        jwk["use"] = "sig"
        return jwk
    }

    /// Its routes: discovery (for the issuer the request was sent to) and keys.
    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/.well-known/openid-configuration") { request, _ -> Response in
            let issuer = "http://" + (request.head.authority ?? "127.0.0.1")
            let document: [String: Any] = [
                "issuer": issuer, "authorization_endpoint": issuer + "/authorize", "token_endpoint": issuer + "/token",
                "jwks_uri": issuer + "/jwks", "id_token_signing_alg_values_supported": ["RS256", "ES256", "EdDSA"],
                "revocation_endpoint": issuer + "/revoke", "token_endpoint_auth_methods_supported": ["client_secret_post"],
                "response_types_supported": ["code"], "subject_types_supported": ["public"],
                "code_challenge_methods_supported": ["S256"], "response_modes_supported": ["query", "form_post"],
            ]
            return Self.json(document)
        }
        router.get("/jwks") { [self] _, _ -> Response in
            fetches.withLock { $0 += 1 }
            let (kids, withoutKID) = published.withLock { $0 }
            var response = Self.json(["keys": kids.map { jwk($0, named: !withoutKID) }])
            response.headers[.cacheControl] = "public, max-age=3600"
            return response
        }
        router.post("/token") { [self] request, _ -> Response in
            let form = try await Self.form(of: request)
            tokenRequests.withLock { $0.append(form) }
            guard form["grant_type"] == "authorization_code", let code = form["code"],
                let tokens = codes.withLock({ $0.removeValue(forKey: code) })
            else {
                var refused = Self.json(["error": "invalid_grant"])
                refused.status = .badRequest
                return refused
            }
            return Self.json([
                "id_token": tokens.idToken, "refresh_token": tokens.refreshToken, "access_token": "a." + UUID().uuidString,
                "token_type": "Bearer", "expires_in": 3600,
            ])
        }
        router.post("/revoke") { [self] request, _ -> Response in
            let form = try await Self.form(of: request)
            guard !refusingRevocations.withLock({ $0 }) else { return Response(status: .serviceUnavailable) }
            revocationRequests.withLock { $0.append(form) }
            return Response(status: .ok)
        }
        return router
    }

    static func form(of request: Request) async throws -> [String: String] {
        let body = try await request.body.collect(upTo: 64 * 1024)
        return Dictionary(
            (FormEncoding.decode(Data(buffer: body)) ?? []).map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    static func json(_ object: Any) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: try! JSONSerialization.data(withJSONObject: object))))
    }

    /// The claims of a good token for `issuer`: the app's audience, valid ten minutes, the
    /// app's nonce hashed, a verified email.
    static func claims(issuer: String, subject: String = "user-1", email: String? = "sam@example.com", verified: Bool = true)
        -> [String: Any]
    {
        let now = Int(Date().timeIntervalSince1970)
        var claims: [String: Any] = [
            "iss": issuer, "aud": audience, "sub": subject, "iat": now, "exp": now + 600, "nonce": SHA256.hexDigest(of: rawNonce),
            "jti": UUID().uuidString,
        ]
        if let email {
            claims["email"] = email
            claims["email_verified"] = verified
        }
        return claims
    }

    /// A token of `claims` signed by the key `kid` (with its algorithm), its header naming
    /// `alg` and `kid` as given (nil leaves `kid` out).
    func token(_ claims: [String: Any], kid: String? = "rsa-1", signingKey: String = "rsa-1", alg: String? = nil) -> String {
        var header: [String: Any] = ["typ": "JWT"]
        header["alg"] = alg ?? ["rsa-1": "RS256", "ec-1": "ES256", "ed-1": "EdDSA"][signingKey]
        if let kid { header["kid"] = kid }
        let headerData = try! JSONSerialization.data(withJSONObject: header, options: .sortedKeys)
        let payload = try! JSONSerialization.data(withJSONObject: claims, options: .sortedKeys)
        return CompactJWS.serialize(header: headerData, payload: payload) { input in
            switch signingKey {
            case "rsa-1": try! rsa.signature(for: input, padding: .insecurePKCS1v1_5).rawRepresentation
            case "ec-1": try! p256.signature(for: input).rawRepresentation
            default: try! ed25519.signature(for: input)
            }
        }
    }

    /// A token whose header says `none`, with no signature (RFC 7519 §6.1).
    func unsecured(_ claims: [String: Any]) -> String {
        let header = Data(#"{"alg":"none","kid":"rsa-1"}"#.utf8)
        let payload = try! JSONSerialization.data(withJSONObject: claims)
        return Base64URL.encode(header) + "." + Base64URL.encode(payload) + "."
    }

    /// A token MACed with HS256 keyed by the RSA key's published JWK (the key-confusion attack).
    func hmacWithPublicKey(_ claims: [String: Any]) -> String {
        let header = Data(#"{"alg":"HS256","kid":"rsa-1"}"#.utf8)
        let payload = try! JSONSerialization.data(withJSONObject: claims)
        let secret = SymmetricKey(data: try! JSONSerialization.data(withJSONObject: jwk("rsa-1"), options: .sortedKeys))
        return CompactJWS.serialize(header: header, payload: payload) { Data(HMAC<SHA256>.authenticationCode(for: $0, using: secret)) }
    }

    /// Serves the provider for the length of `body`, given its issuer (`http://127.0.0.1:PORT`).
    func withRunning<T: Sendable>(_ body: @Sendable (String) async throws -> T) async throws -> T {
        try await EphemeralServer.withRunning(router(), body)
    }
}

extension ServerFixture {
    /// Adds the provider at `issuer` as `name` (accounts made at first sign-in when
    /// `createsAccounts`), through the registry `authd provider add` calls.
    @discardableResult
    func addProvider(
        _ name: String, issuer: String, clientIDs: [String] = [TestIdentityProvider.audience], createsAccounts: Bool = true,
        kind: IdentityProvider.Kind = .oidc, apple: (teamID: String, keyID: String, key: P256.Signing.PrivateKey)? = nil
    ) async throws -> IdentityProvider {
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let kek = keyEncryptionKey
        do {
            let provider = try await PostgresStorage(
                configuration: testDatabase.configuration, timeout: TestCluster.operationTimeout, logger: TestCluster.logger
            ).withRunning { storage in
                try await ProviderRegistry(
                    storage: storage,
                    transport: HTTPProviderTransport(client: client, timeout: .seconds(ServerFixture.providerTimeout.components.seconds)),
                    keyEncryptionKey: kek
                )
                .add(
                    ProviderRegistration(
                        name: name, kind: kind, issuer: issuer, clientIDs: clientIDs, createsAccounts: createsAccounts,
                        appleTeamID: apple?.teamID, appleKeyID: apple?.keyID, applePrivateKeyPEM: apple?.key.pemRepresentation)
                )
            }
            try await client.shutdown()
            return provider
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}
