import Crypto
import Foundation
import JOSE
import _CryptoExtras

/// A provider's published signing key (a JWK of its `jwks_uri`, RFC 7517): RSA of 2048 bits
/// or more (RS256), P-256 (ES256) or Ed25519 (EdDSA). Other keys of the set (encryption
/// keys, other curves, symmetric ones) are skipped, never used.
///
/// ```swift
/// let keys = ProviderPublicKey.keys(in: jwksBody)
/// keys.first?.verifies(signature, of: signingInput)
/// ```
public struct ProviderPublicKey: Sendable {
    /// The JWS algorithms authd verifies ID tokens with. Never `none`, never an HMAC: a
    /// token whose header names one is refused before any key is looked at.
    public enum Algorithm: String, Sendable, CaseIterable {
        case rs256 = "RS256"
        case es256 = "ES256"
        case edDSA = "EdDSA"
    }

    private enum Key: Sendable {
        case rsa(_RSA.Signing.PublicKey)
        case p256(P256.Signing.PublicKey)
        case ed25519(Curve25519.Signing.PublicKey)
    }

    /// The key's `kid`, if it has one.
    public let kid: String?
    /// The algorithm its type allows.
    public let algorithm: Algorithm
    private let key: Key

    /// Whether `signature` is this key's JWS signature of `data`.
    public func verifies(_ signature: Data, of data: Data) -> Bool {
        switch key {
        case .rsa(let key):
            key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: data, padding: .insecurePKCS1v1_5)
        case .p256(let key):
            (try? P256.Signing.ECDSASignature(rawRepresentation: signature)).map { key.isValidSignature($0, for: data) } ?? false
        case .ed25519(let key):
            key.isValidSignature(signature, for: data)
        }
    }

    /// The usable signing keys of a JWK Set document; nil when it is not one.
    public static func keys(in body: Data) -> [ProviderPublicKey]? {
        guard let set = try? JSONDecoder().decode(JWKSet.self, from: body) else { return nil }
        return set.keys.compactMap(ProviderPublicKey.init)
    }

    private struct JWKSet: Decodable {
        var keys: [JWK]
    }

    /// A JWK with every member optional: a provider's set may hold keys of other kinds.
    private struct JWK: Decodable {
        var kty: String?
        var kid: String?
        var alg: String?
        var use: String?
        var crv: String?
        var x: String?
        var y: String?
        var n: String?
        var e: String?
    }

    private init?(_ jwk: JWK) {
        // A key for encryption only is not one to verify signatures with (RFC 7517 §4.2).
        guard jwk.use == nil || jwk.use == "sig" else { return nil }
        let parsed: (Key, Algorithm)?
        switch (jwk.kty, jwk.crv) {
        case ("RSA", _):
            parsed = Self.bytes(jwk.n).flatMap { n in
                Self.bytes(jwk.e).flatMap { e in (try? _RSA.Signing.PublicKey(n: n, e: e)).map { (.rsa($0), .rs256) } }
            }
        case ("EC", "P-256"):
            parsed = Self.bytes(jwk.x).flatMap { x in
                Self.bytes(jwk.y).flatMap { y in
                    (try? P256.Signing.PublicKey(rawRepresentation: x + y)).map { (.p256($0), .es256) }
                }
            }
        case ("OKP", "Ed25519"):
            parsed = Self.bytes(jwk.x).flatMap { x in
                (try? Curve25519.Signing.PublicKey(rawRepresentation: x)).map { (.ed25519($0), .edDSA) }
            }
        default:
            parsed = nil
        }
        // A key that names an algorithm is used with that one only (RFC 7517 §4.4).
        guard let (key, algorithm) = parsed, jwk.alg == nil || jwk.alg == algorithm.rawValue else { return nil }
        self.kid = jwk.kid
        self.algorithm = algorithm
        self.key = key
    }

    private static func bytes(_ text: String?) -> Data? {
        text.flatMap { Base64URL.decode($0) }
    }
}
