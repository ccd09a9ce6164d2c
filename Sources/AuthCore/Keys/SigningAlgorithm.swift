import Crypto
import Foundation
import JOSE
import _CryptoExtras

/// The JWS algorithms (RFC 7518 §3.1, RFC 8037) authd keeps a key of: EdDSA signs access
/// tokens; ID tokens are signed with each client's choice, RS256 by default, as OpenID
/// Connect Core §3.1.3.7 makes it the one every client supports.
public enum SigningAlgorithm: String, Sendable, CaseIterable, Codable {
    /// Ed25519 (RFC 8037).
    case edDSA = "EdDSA"
    /// RSASSA-PKCS1-v1_5 with SHA-256, a 2048-bit key (RFC 7518 §3.3).
    case rs256 = "RS256"
    /// ECDSA on P-256 with SHA-256 (RFC 7518 §3.4).
    case es256 = "ES256"

    /// A fresh private key of this algorithm, as ``SigningKey`` stores it: Ed25519's and
    /// P-256's raw scalar, RSA's PKCS#1 DER.
    func generatePrivateKey() throws -> Data {
        switch self {
        case .edDSA: Curve25519.Signing.PrivateKey().rawRepresentation
        case .es256: P256.Signing.PrivateKey().rawRepresentation
        case .rs256: try _RSA.Signing.PrivateKey(keySize: .bits2048).derRepresentation
        }
    }
}

/// A private key opened for signing, parsed once.
///
/// ```swift
/// let signer = try JWSSigner(key)          // key: a SigningKey
/// let signature = try signer.sign(Data("header.payload".utf8))
/// ```
public struct JWSSigner: Sendable {
    private enum Key: Sendable {
        case ed25519(Curve25519.Signing.PrivateKey)
        case p256(P256.Signing.PrivateKey)
        case rsa(_RSA.Signing.PrivateKey)
    }

    private let key: Key
    /// The key's id.
    public let kid: String
    /// Its algorithm.
    public let algorithm: SigningAlgorithm

    /// Parses `key`'s private key.
    public init(_ key: SigningKey) throws {
        kid = key.kid
        algorithm = key.algorithm
        switch key.algorithm {
        case .edDSA: self.key = .ed25519(try Curve25519.Signing.PrivateKey(rawRepresentation: key.privateKey))
        case .es256: self.key = .p256(try P256.Signing.PrivateKey(rawRepresentation: key.privateKey))
        case .rs256: self.key = .rsa(try _RSA.Signing.PrivateKey(derRepresentation: key.privateKey))
        }
    }

    /// The JWS signature of `data` (for ES256, R and S concatenated, RFC 7518 §3.4).
    public func sign(_ data: Data) throws -> Data {
        switch key {
        case .ed25519(let key): try key.signature(for: data)
        case .p256(let key): try key.signature(for: data).rawRepresentation
        case .rsa(let key): try key.signature(for: data, padding: .insecurePKCS1v1_5).rawRepresentation
        }
    }

    /// The public key as a JSON Web Key (RFC 7517 §4, RFC 7518 §6, RFC 8037 §2).
    public var jwk: SigningKey.JWK {
        get throws {
            switch key {
            case .ed25519(let key):
                return SigningKey.JWK(
                    kty: "OKP", kid: kid, alg: algorithm.rawValue, crv: "Ed25519", x: Base64URL.encode(key.publicKey.rawRepresentation))
            case .p256(let key):
                let raw = key.publicKey.rawRepresentation
                return SigningKey.JWK(
                    kty: "EC", kid: kid, alg: algorithm.rawValue, crv: "P-256", x: Base64URL.encode(raw.prefix(32)),
                    y: Base64URL.encode(raw.suffix(32)))
            case .rsa(let key):
                let primitives = try key.publicKey.getKeyPrimitives()
                return SigningKey.JWK(
                    kty: "RSA", kid: kid, alg: algorithm.rawValue, n: Base64URL.encode(primitives.modulus),
                    e: Base64URL.encode(primitives.publicExponent))
            }
        }
    }

    /// Whether `signature` is this key's JWS signature of `data`.
    public func verifies(_ signature: Data, of data: Data) -> Bool {
        switch key {
        case .ed25519(let key):
            return key.publicKey.isValidSignature(signature, for: data)
        case .p256(let key):
            guard let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.publicKey.isValidSignature(parsed, for: data)
        case .rsa(let key):
            return key.publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: data, padding: .insecurePKCS1v1_5)
        }
    }

    /// The key's public half as the `kid` is derived from it: Ed25519's and P-256's raw
    /// bytes, RSA's DER.
    var publicKeyBytes: Data {
        switch key {
        case .ed25519(let key): key.publicKey.rawRepresentation
        case .p256(let key): key.publicKey.rawRepresentation
        case .rsa(let key): key.publicKey.derRepresentation
        }
    }
}
