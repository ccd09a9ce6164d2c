import Crypto
import Foundation
import JOSE

/// An Ed25519 key that signs access tokens, identified by ``kid``.
///
/// ```swift
/// let key = SigningKey.generate(now: Date())
/// key.jwk.kid == key.kid   // true
/// ```
public struct SigningKey: Sendable, Equatable {
    /// Key identifier, sent as the JWT header's `kid`.
    public let kid: String
    /// The raw 32-byte private key. Never log it.
    public let privateKey: Data
    /// When the key was created.
    public let createdAt: Date

    /// Wraps stored key material.
    public init(kid: String, privateKey: Data, createdAt: Date) {
        self.kid = kid
        self.privateKey = privateKey
        self.createdAt = createdAt
    }

    /// A fresh random key whose `kid` is derived from its public key.
    public static func generate(now: Date) -> SigningKey {
        let key = Curve25519.Signing.PrivateKey()
        let thumb = Base64URL.encode(Data(SHA256.hash(data: key.publicKey.rawRepresentation).prefix(12)))
        return SigningKey(kid: thumb, privateKey: key.rawRepresentation, createdAt: now)
    }

    /// The swift-crypto key.
    public func signingKey() throws -> Curve25519.Signing.PrivateKey {
        try Curve25519.Signing.PrivateKey(rawRepresentation: privateKey)
    }

    /// The public half as a JSON Web Key (RFC 8037).
    public var jwk: JWK {
        get throws {
            JWK(kid: kid, x: Base64URL.encode(try signingKey().publicKey.rawRepresentation))
        }
    }

    /// A public Ed25519 JSON Web Key.
    public struct JWK: Codable, Sendable, Equatable {
        /// Always `OKP`.
        public var kty = "OKP"
        /// Always `Ed25519`.
        public var crv = "Ed25519"
        /// Key identifier.
        public var kid: String
        /// The public key, base64url.
        public var x: String
        /// Always `EdDSA`.
        public var alg = "EdDSA"
        /// Always `sig`.
        public var use = "sig"

        /// Creates a JWK.
        public init(kid: String, x: String) {
            self.kid = kid
            self.x = x
        }
    }

    /// A JWK Set: `{"keys": [...]}`.
    public struct JWKSet: Codable, Sendable, Equatable {
        /// The keys, current first.
        public var keys: [JWK]

        /// Creates a set.
        public init(keys: [JWK]) {
            self.keys = keys
        }
    }
}
