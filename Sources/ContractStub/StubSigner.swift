import ContractKit
import Crypto
import Foundation
import JOSE

/// The stub's own Ed25519 key: it signs the JWTs the stub hands out and is published as
/// the stub's JWKS, so a client can verify stub tokens exactly like real ones.
///
/// ```swift
/// let signer = StubSigner()
/// let token = signer.token(subject: "stub-user", lifetime: 900)
/// signer.jwks   // {"keys":[{"kty":"OKP","crv":"Ed25519","kid":…,"x":…}]}
/// ```
public struct StubSigner: Sendable {
    /// The `alg` of its tokens.
    public static let algorithm = "EdDSA"
    private let key: Curve25519.Signing.PrivateKey
    /// The key id in tokens and in the JWKS.
    public let kid: String
    /// The tokens' JOSE header, `{"alg":"EdDSA","kid":…,"typ":"JWT"}` in base64url, encoded once.
    private let encodedHeader: String

    /// A signer with a fresh random key.
    public init(key: Curve25519.Signing.PrivateKey = Curve25519.Signing.PrivateKey()) {
        self.key = key
        let kid = "stub-" + Base64URL.encode(Data(SHA256.hash(data: key.publicKey.rawRepresentation).prefix(9)))
        self.kid = kid
        let header = JSONValue.object(["alg": .string(Self.algorithm), "typ": .string("JWT"), "kid": .string(kid)])
        encodedHeader = Base64URL.encode(Data(header.description.utf8))
    }

    /// The public key, as a JWK Set.
    public var jwks: JSONValue {
        .object([
            "keys": .array([
                .object([
                    "kty": .string("OKP"), "crv": .string("Ed25519"), "alg": .string(Self.algorithm), "use": .string("sig"),
                    "kid": .string(kid), "x": .string(Base64URL.encode(key.publicKey.rawRepresentation)),
                ])
            ])
        ])
    }

    /// The standard claims of a stub token: `iss: contract-stub`, `sub`, `iat`, `exp`, `jti`.
    public func claims(subject: String, lifetime: Int, now: Date = Date()) -> [String: JSONValue] {
        let issued = Int(now.timeIntervalSince1970)
        return [
            "iss": .string("contract-stub"), "sub": .string(subject), "iat": .integer(issued),
            "exp": .integer(issued + lifetime), "jti": .string(UUID().uuidString.lowercased()),
        ]
    }

    /// A signed compact JWT with `iss: contract-stub`, `sub`, `iat`, `exp` and `jti`.
    public func token(subject: String, lifetime: Int, now: Date = Date()) -> String {
        token(claims: claims(subject: subject, lifetime: lifetime, now: now))
    }

    /// A signed compact JWT (EdDSA, this signer's `kid`) carrying `claims`.
    ///
    /// ```swift
    /// var claims = signer.claims(subject: "stub-user", lifetime: 900)
    /// claims["sub"] = .string(UUID().uuidString.lowercased())
    /// let token = signer.token(claims: claims)
    /// ```
    public func token(claims: [String: JSONValue]) -> String {
        CompactJWS.serialize(encodedHeader: encodedHeader, payload: Data(JSONValue.object(claims).description.utf8)) {
            (try? key.signature(for: $0)) ?? Data()
        }
    }
}
