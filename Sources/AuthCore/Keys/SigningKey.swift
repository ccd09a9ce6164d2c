import Crypto
import Foundation
import JOSE

/// A key that signs tokens, identified by ``kid``: Ed25519 for access tokens, and RS256,
/// ES256 or EdDSA for ID tokens (``SigningAlgorithm``).
///
/// ```swift
/// let key = try SigningKey.generate(now: Date(), algorithm: .rs256)
/// try key.jwk.kid == key.kid   // true
/// ```
public struct SigningKey: Sendable, Equatable {
    /// Key identifier, sent as the JWT header's `kid`.
    public let kid: String
    /// What it signs with.
    public let algorithm: SigningAlgorithm
    /// The private key: Ed25519's or P-256's raw 32 bytes, RSA's PKCS#1 DER. Never log it.
    public let privateKey: Data
    /// When the key was created.
    public let createdAt: Date

    /// Wraps stored key material.
    public init(kid: String, algorithm: SigningAlgorithm = .edDSA, privateKey: Data, createdAt: Date) {
        self.kid = kid
        self.algorithm = algorithm
        self.privateKey = privateKey
        self.createdAt = createdAt
    }

    /// A fresh random Ed25519 key whose `kid` is derived from its public key.
    public static func generate(now: Date) -> SigningKey {
        do {
            return try generate(now: now, algorithm: .edDSA)
        } catch {
            preconditionFailure("an Ed25519 key is always made: \(error)")
        }
    }

    /// A fresh random key of `algorithm` whose `kid` is derived from its public key (the
    /// first 96 bits of its SHA-256, base64url).
    public static func generate(now: Date, algorithm: SigningAlgorithm) throws -> SigningKey {
        let material = try algorithm.generatePrivateKey()
        let signer = try JWSSigner(SigningKey(kid: "", algorithm: algorithm, privateKey: material, createdAt: now))
        let kid = Base64URL.encode(Data(SHA256.hash(data: signer.publicKeyBytes).prefix(12)))
        return SigningKey(kid: kid, algorithm: algorithm, privateKey: material, createdAt: now)
    }

    /// The swift-crypto key of an Ed25519 key.
    public func signingKey() throws -> Curve25519.Signing.PrivateKey {
        guard algorithm == .edDSA else { throw SigningKeyError.notEd25519(kid: kid) }
        return try Curve25519.Signing.PrivateKey(rawRepresentation: privateKey)
    }

    /// The public half as a JSON Web Key.
    public var jwk: JWK {
        get throws { try JWSSigner(self).jwk }
    }

    /// A public JSON Web Key (RFC 7517): `OKP` with `crv` and `x` (RFC 8037), `EC` with
    /// `crv`, `x` and `y`, or `RSA` with `n` and `e` (RFC 7518 §6).
    public struct JWK: Codable, Sendable, Equatable {
        /// `OKP`, `EC` or `RSA`.
        public var kty: String
        /// Key identifier.
        public var kid: String
        /// `EdDSA`, `ES256` or `RS256`.
        public var alg: String
        /// Always `sig`.
        public var use = "sig"
        /// `Ed25519` or `P-256`.
        public var crv: String?
        /// The public key (OKP), or its x coordinate (EC), base64url.
        public var x: String?
        /// The y coordinate (EC), base64url.
        public var y: String?
        /// The modulus (RSA), base64url.
        public var n: String?
        /// The public exponent (RSA), base64url.
        public var e: String?

        /// An Ed25519 JWK.
        public init(kid: String, x: String) {
            self.init(kty: "OKP", kid: kid, alg: "EdDSA", crv: "Ed25519", x: x)
        }

        /// A JWK of any type.
        public init(
            kty: String, kid: String, alg: String, crv: String? = nil, x: String? = nil, y: String? = nil, n: String? = nil,
            e: String? = nil
        ) {
            self.kty = kty
            self.kid = kid
            self.alg = alg
            self.crv = crv
            self.x = x
            self.y = y
            self.n = n
            self.e = e
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

/// A key used for what its algorithm cannot do.
public enum SigningKeyError: Error, Sendable, Equatable {
    /// An access token needs an Ed25519 key.
    case notEd25519(kid: String)
}
