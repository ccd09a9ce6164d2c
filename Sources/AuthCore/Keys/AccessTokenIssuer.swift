import Crypto
import Foundation
import JOSE
import Synchronization

/// The claims of an access token (RFC 9068): `iss`, `sub` (user id, or a relying party's
/// client id for its `client_credentials` tokens), `aud` (the configured audiences, when there
/// are any; a relying party's own), `client_id` (``OAuthClient/firstPartyID`` for the tokens of
/// authd's login routes), `iat`, `exp` (whole seconds), `jti`, `sid` (the session: the
/// refresh-token family it was issued with); `nbf` when a token carries one.
///
/// ```swift
/// let claims = try await issuer.verify(token)
/// claims.sub   // the user's id
/// ```
public struct AccessTokenClaims: Codable, Sendable, Equatable {
    /// Issuer.
    public var iss: String
    /// Subject: the user's id.
    public var sub: String
    /// Issued at, seconds since 1970.
    public var iat: Int
    /// Expires at, seconds since 1970.
    public var exp: Int
    /// Unique token id.
    public var jti: String
    /// Audiences: the resource servers the token is meant for; absent when none is configured.
    public var aud: [String]?
    /// Not before, seconds since 1970; authd issues none but honours one.
    public var nbf: Int?
    /// The session the token was issued in (its id in `GET /sessions`), when there is one.
    public var sid: String?
    /// The client the token was issued to (RFC 9068 §2.2); tokens signed before authd
    /// wrote it have none.
    public var clientID: String?
    /// When the user last authenticated (a password, a code, a passkey), seconds since 1970
    /// (RFC 9068 §2.2.1); tokens of a refresh carry none.
    public var authTime: Int?
    /// The scopes granted, space-separated (RFC 9068 §2.2.3): an OpenID Connect client's
    /// tokens carry them; authd's own login routes' tokens none.
    public var scope: String?

    /// Creates claims.
    public init(
        iss: String, sub: String, iat: Int, exp: Int, jti: String, aud: [String]? = nil, nbf: Int? = nil, sid: String? = nil,
        clientID: String? = nil, authTime: Int? = nil, scope: String? = nil
    ) {
        self.scope = scope
        self.iss = iss
        self.sub = sub
        self.iat = iat
        self.exp = exp
        self.jti = jti
        self.aud = aud
        self.nbf = nbf
        self.sid = sid
        self.clientID = clientID
        self.authTime = authTime
    }

    private enum CodingKeys: String, CodingKey {
        case iss, sub, iat, exp, jti, aud, nbf, sid, scope
        case clientID = "client_id"
        case authTime = "auth_time"
    }

    /// The user the token was issued to: its `sub`, when it was issued by authd's own login
    /// routes (`client_id` ``OAuthClient/firstPartyID``); nil for a relying party's own token,
    /// whose `sub` is its client id (users and clients are told apart by who the token was
    /// issued to, never by the shape of `sub`).
    public var userID: UUID? {
        guard clientID == OAuthClient.firstPartyID else { return nil }
        return UUID(uuidString: sub)
    }
}

/// Signs access tokens as RFC 9068 profiles them (JWT, EdDSA, `typ: at+jwt`, `kid` in the
/// header) with the current signing key and verifies them against every published key.
/// Signing and verifying run on the caller's thread (Ed25519 with swift-crypto, the
/// compact serialization with ``JOSE/CompactJWS``), without a hop to another executor:
/// the installed keys are an immutable set read under a lock.
///
/// ```swift
/// let issuer = AccessTokenIssuer(issuer: "authd", lifetime: 900, clock: SystemClock())
/// issuer.install([SigningKey.generate(now: Date())])
/// let token = try issuer.issue(subject: user.id.uuidString)
/// let claims = try issuer.verify(token.value)
/// ```
public final class AccessTokenIssuer: Sendable {
    /// A signed token and its lifetime.
    public struct Issued: Sendable {
        /// The compact JWT.
        public let value: String
        /// Seconds until it expires.
        public let expiresIn: Int
    }

    /// The `iss` claim.
    public let issuer: String
    /// Lifetime of new tokens, in seconds.
    public let lifetime: Int
    /// The `aud` claim of new tokens; a token verifies only if it names one of them. Empty:
    /// tokens carry no `aud`.
    public let audiences: [String]
    private let clock: any WallClock
    private let keys = Mutex(Keys())
    /// How many verified tokens are kept; past it the set starts again.
    static let verifiedCapacity = 10_000

    /// The installed keys: the first signs, all verify and are published.
    private struct Keys: Sendable {
        /// The signing key and its JOSE header, encoded once (JSON, then base64url).
        var current: (kid: String, key: Curve25519.Signing.PrivateKey, encodedHeader: String)?
        var verifying: [String: Curve25519.Signing.PublicKey] = [:]
        var jwks = SigningKey.JWKSet(keys: [])
        /// The current key of each algorithm, for ID tokens.
        var idTokenSigners: [SigningAlgorithm: JWSSigner] = [:]
        /// Every published key by kid, to check an ID token authd issued (a logout's hint).
        var idTokenVerifiers: [String: JWSSigner] = [:]
        /// Claims of tokens whose header and signature were checked against these keys, by
        /// the token's SHA-256 (a client sends its token many times: the signature is checked
        /// once). New keys start an empty set, so a revoked key's tokens stop at once; the
        /// issuer, audience and time are checked on every use.
        var verified: [SHA256Digest: AccessTokenClaims] = [:]
    }

    /// Creates an issuer; ``install(_:)`` keys before issuing.
    public init(issuer: String, lifetime: Int, audiences: [String] = [], clock: any WallClock) {
        self.issuer = issuer
        self.lifetime = lifetime
        self.audiences = audiences
        self.clock = clock
    }

    /// The media type RFC 9068 gives access tokens, in the JOSE header's `typ`.
    public static let tokenType = "at+jwt"

    /// Replaces the keys: the first Ed25519 key signs access tokens, and every Ed25519 key
    /// verifies them; the first key of each algorithm signs ID tokens; all are published.
    public func install(_ signingKeys: [SigningKey]) throws {
        var installed = Keys()
        for key in signingKeys {
            let signer = try JWSSigner(key)
            installed.idTokenVerifiers[key.kid] = signer
            if installed.idTokenSigners[key.algorithm] == nil { installed.idTokenSigners[key.algorithm] = signer }
        }
        for key in signingKeys where key.algorithm == .edDSA {
            let privateKey = try key.signingKey()
            installed.verifying[key.kid] = privateKey.publicKey
            if installed.current == nil {
                installed.current = (key.kid, privateKey, Base64URL.encode(try JSONEncoder().encode(SignedHeader(kid: key.kid))))
            }
        }
        // Access tokens' keys first, then the ID tokens' of each algorithm, newest first in each.
        let order = SigningAlgorithm.allCases
        let published = signingKeys.enumerated().sorted {
            (order.firstIndex(of: $0.element.algorithm) ?? 0, $0.offset) < (order.firstIndex(of: $1.element.algorithm) ?? 0, $1.offset)
        }
        installed.jwks = SigningKey.JWKSet(keys: try published.map { try $0.element.jwk })
        keys.withLock { $0 = installed }
    }

    /// Signs a token for `subject`, in the session `sessionID` when given, issued to
    /// `clientID` (authd's own login routes by default) for `audiences` (the configured ones
    /// by default), with `auth_time` when the token comes of an authentication at `authenticatedAt`,
    /// and the `scope` granted to an OpenID Connect client.
    public func issue(
        subject: String, sessionID: UUID? = nil, clientID: String = OAuthClient.firstPartyID, audiences: [String]? = nil,
        authenticatedAt: Date? = nil, scopes: [String]? = nil
    ) throws -> Issued {
        guard let current = keys.withLock({ $0.current }) else { throw AuthError.serviceUnavailable("No signing key is loaded yet.") }
        let now = Int(clock.now.timeIntervalSince1970)
        let audiences = audiences ?? self.audiences
        let claims = AccessTokenClaims(
            iss: issuer, sub: subject, iat: now, exp: now + lifetime, jti: UUID().uuidString.lowercased(),
            aud: audiences.isEmpty ? nil : audiences,
            sid: sessionID?.uuidString.lowercased(), clientID: clientID, authTime: authenticatedAt.map { Int($0.timeIntervalSince1970) },
            scope: scopes?.joined(separator: " ")
        )
        let token = try CompactJWS.serialize(encodedHeader: current.encodedHeader, payload: try JSONEncoder().encode(claims)) {
            try current.key.signature(for: $0)
        }
        return Issued(value: token, expiresIn: lifetime)
    }

    /// The ids of the installed keys, current first.
    public var kids: [String] { jwks.keys.map(\.kid) }

    /// The published public keys, current first.
    public var jwks: SigningKey.JWKSet { keys.withLock { $0.jwks } }

    /// Verifies the header (`alg` must be `EdDSA`, `typ` `at+jwt`, `kid` one of the
    /// published keys, and no `crit`: authd understands no extension), the signature, the
    /// issuer, the audience (unless `anyAudience`: introspection answers for every
    /// audience and says which), `nbf` and the expiry. The header is read before any key
    /// is chosen, so `alg: none` or an HMAC algorithm never reaches a verifier.
    /// - Throws: ``AuthError/invalidToken`` for any token that does not hold.
    public func verify(_ token: String, anyAudience: Bool = false) throws -> AccessTokenClaims {
        guard token.utf8.count <= 4096 else { throw AuthError.invalidToken }
        let digest = SHA256.hash(data: Data(token.utf8))
        let (known, verifying) = keys.withLock { ($0.verified[digest], $0.verifying) }
        let claims: AccessTokenClaims
        if let known {
            claims = known
        } else {
            claims = try Self.signedClaims(token, keys: verifying)
            keys.withLock { keys in
                // Kept only while the keys it was checked with are still the installed ones.
                guard keys.verifying.keys == verifying.keys else { return }
                if keys.verified.count >= Self.verifiedCapacity { keys.verified.removeAll(keepingCapacity: true) }
                keys.verified[digest] = claims
            }
        }
        let now = clock.now.timeIntervalSince1970
        guard claims.iss == issuer, Double(claims.exp) > now, claims.nbf.map({ Double($0) <= now }) ?? true,
            anyAudience || audiences.isEmpty || !Set(claims.aud ?? []).isDisjoint(with: audiences)
        else {
            throw AuthError.invalidToken
        }
        return claims
    }

    /// The claims of `token` once its header holds and its signature verifies with the key
    /// of `keys` its `kid` names.
    private static func signedClaims(_ token: String, keys: [String: Curve25519.Signing.PublicKey]) throws -> AccessTokenClaims {
        guard let jws = CompactJWS(token),
            let header = try? JSONDecoder().decode(Header.self, from: jws.header),
            header.alg == "EdDSA", let kid = header.kid, let key = keys[kid],
            header.typ.map(Self.isAccessTokenType) == true, header.crit == nil,
            key.isValidSignature(jws.signature, for: jws.signingInput),
            let claims = try? JSONDecoder().decode(AccessTokenClaims.self, from: jws.payload)
        else {
            throw AuthError.invalidToken
        }
        return claims
    }

    /// `at+jwt`, or its full media type `application/at+jwt`, in any case (RFC 9068 §4).
    private static func isAccessTokenType(_ typ: String) -> Bool {
        let lowered = typ.lowercased()
        return lowered == tokenType || lowered == "application/" + tokenType
    }

    /// The JOSE header of the tokens the key `kid` signs.
    /// The current signer of ID tokens of `algorithm`.
    func idTokenSigner(_ algorithm: SigningAlgorithm) -> JWSSigner? {
        keys.withLock { $0.idTokenSigners[algorithm] }
    }

    /// The published key `kid`, for checking an ID token.
    func idTokenVerifier(kid: String) -> JWSSigner? {
        keys.withLock { $0.idTokenVerifiers[kid] }
    }

    private struct SignedHeader: Encodable {
        let alg = "EdDSA"
        let kid: String
        let typ = AccessTokenIssuer.tokenType
    }

    private struct Header: Decodable {
        let alg: String?
        let kid: String?
        let typ: String?
        /// Present at all (even empty) is refused: RFC 7515 §4.1.11.
        let crit: JSONIgnored?
    }

    /// Any JSON value, decoded only to learn that it is there.
    private struct JSONIgnored: Decodable {
        init(from decoder: any Decoder) throws {}
    }
}
