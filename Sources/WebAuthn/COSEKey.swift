import Crypto
import Foundation
import _CryptoExtras

/// A credential public key as a COSE_Key (RFC 9052 §7, RFC 9053): EC2 P-256 for ES256,
/// OKP Ed25519 for EdDSA, or RSA (n, e; at least 2048 bits) for RS256, with the exact bytes
/// it was parsed from (what is stored per credential).
///
/// ```swift
/// let key = try COSEKey(bytes: credential.publicKey)
/// key.algorithm                                                   // .es256
/// key.isValidSignature(signature, for: authenticatorData + clientDataHash)
/// ```
public struct COSEKey: Sendable, Equatable {
    /// The signature algorithm (the key's `alg`, label 3).
    public let algorithm: COSEAlgorithm
    /// The COSE_Key bytes, exactly as parsed.
    public let bytes: Data
    private let verifier: Verifier

    private enum Verifier: Sendable {
        case p256(P256.Signing.PublicKey)
        case ed25519(Curve25519.Signing.PublicKey)
        case rsa(_RSA.Signing.PublicKey)
    }

    /// COSE key labels and values (RFC 9052 §7.1, RFC 9053 §7).
    private enum Label {
        static let kty = 1, alg = 3, crv = -1, x = -2, y = -3, n = -1, e = -2
    }

    /// The largest RSA modulus accepted, in bytes (8192 bits), bounding verification cost.
    static let maximumRSAModulusBytes = 1024

    /// Parses a COSE_Key.
    ///
    /// ```swift
    /// let key = try COSEKey(bytes: Data(hex: "a5010203262001215820…225820…"))   // ES256
    /// ```
    /// - Throws: a malformed ``WebAuthnError`` (field `credentialPublicKey`) when the bytes
    ///   are not a COSE_Key of a supported type, or rejected with ``WebAuthnError/Check/algorithm``
    ///   for an algorithm or key size that is not accepted.
    public init(bytes: Data) throws(WebAuthnError) {
        try self.init(cbor: try CBORDecoder.decode(bytes, field: Self.field), bytes: bytes)
    }

    /// Parses a COSE_Key already decoded from `bytes`.
    init(cbor: CBORValue, bytes: Data) throws(WebAuthnError) {
        guard cbor.mapValue != nil else { throw .malformed(Self.field, "is not a CBOR map") }
        guard let kty = cbor[Label.kty]?.intValue else { throw .malformed(Self.field, "has no integer kty (1)") }
        guard let alg = cbor[Label.alg]?.intValue else { throw .malformed(Self.field, "has no integer alg (3)") }
        guard let algorithm = COSEAlgorithm(rawValue: alg) else {
            throw .rejected(.algorithm, "credential algorithm \(alg) is not supported (ES256, EdDSA and RS256 are)")
        }
        self.algorithm = algorithm
        self.bytes = bytes
        switch algorithm {
        case .es256:
            guard kty == 2 else { throw .malformed(Self.field, "an ES256 key must have kty EC2 (2)") }
            guard cbor[Label.crv]?.intValue == 1 else { throw .rejected(.algorithm, "an ES256 key must be on curve P-256 (crv 1)") }
            let x = try Self.coordinate(cbor[Label.x], name: "x")
            let y = try Self.coordinate(cbor[Label.y], name: "y")
            do {
                verifier = .p256(try P256.Signing.PublicKey(x963Representation: Data([0x04]) + x + y))
            } catch {
                throw .malformed(Self.field, "x and y are not a point on P-256")
            }
        case .edDSA:
            guard kty == 1 else { throw .malformed(Self.field, "an EdDSA key must have kty OKP (1)") }
            guard cbor[Label.crv]?.intValue == 6 else { throw .rejected(.algorithm, "an EdDSA key must be on curve Ed25519 (crv 6)") }
            let x = try Self.coordinate(cbor[Label.x], name: "x")
            do {
                verifier = .ed25519(try Curve25519.Signing.PublicKey(rawRepresentation: x))
            } catch {
                throw .malformed(Self.field, "x is not an Ed25519 public key")
            }
        case .rs256:
            guard kty == 3 else { throw .malformed(Self.field, "an RS256 key must have kty RSA (3)") }
            guard let n = cbor[Label.n]?.bytesValue, let e = cbor[Label.e]?.bytesValue else {
                throw .malformed(Self.field, "an RSA key needs byte strings n (-1) and e (-2)")
            }
            let modulus = n.drop { $0 == 0 }
            guard modulus.count >= 256 else { throw .rejected(.algorithm, "RSA keys shorter than 2048 bits are not accepted") }
            guard modulus.count <= Self.maximumRSAModulusBytes else {
                throw .rejected(.algorithm, "RSA keys longer than 8192 bits are not accepted")
            }
            guard (1...8).contains(e.count), e.last.map({ $0 & 1 == 1 }) == true else {
                throw .malformed(Self.field, "e is not an odd exponent of at most 8 bytes")
            }
            do {
                verifier = .rsa(try _RSA.Signing.PublicKey(n: Data(modulus), e: e))
            } catch {
                throw .malformed(Self.field, "n and e are not an RSA public key")
            }
        }
    }

    /// Whether `signature` is this key's signature over `data`: DER-encoded ECDSA with
    /// SHA-256 for ES256, Ed25519 for EdDSA, PKCS#1 v1.5 with SHA-256 for RS256.
    ///
    /// ```swift
    /// key.isValidSignature(assertion.signature, for: authenticatorData + SHA256.hash(data: clientDataJSON))
    /// ```
    public func isValidSignature(_ signature: Data, for data: Data) -> Bool {
        switch verifier {
        case .p256(let key):
            guard let ecdsa = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(ecdsa, for: data)
        case .ed25519(let key):
            return key.isValidSignature(signature, for: data)
        case .rsa(let key):
            return key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: data), padding: .insecurePKCS1v1_5
            )
        }
    }

    /// Keys are equal when their bytes are.
    ///
    /// ```swift
    /// try COSEKey(bytes: stored) == COSEKey(bytes: stored)   // true
    /// ```
    public static func == (lhs: COSEKey, rhs: COSEKey) -> Bool {
        lhs.bytes == rhs.bytes
    }

    /// The COSE_Key of a P-256 public key with alg ES256.
    static func encoded(_ key: P256.Signing.PublicKey) -> Data {
        let point = key.x963Representation  // 04 ‖ x ‖ y
        return CBOREncoder.encode(
            .map([
                CBORMapEntry(.int(Label.kty), .int(2)),
                CBORMapEntry(.int(Label.alg), .int(COSEAlgorithm.es256.rawValue)),
                CBORMapEntry(.int(Label.crv), .int(1)),
                CBORMapEntry(.int(Label.x), .bytes(point.dropFirst().prefix(32))),
                CBORMapEntry(.int(Label.y), .bytes(point.suffix(32))),
            ]))
    }

    /// The COSE_Key of an Ed25519 public key with alg EdDSA.
    static func encoded(_ key: Curve25519.Signing.PublicKey) -> Data {
        CBOREncoder.encode(
            .map([
                CBORMapEntry(.int(Label.kty), .int(1)),
                CBORMapEntry(.int(Label.alg), .int(COSEAlgorithm.edDSA.rawValue)),
                CBORMapEntry(.int(Label.crv), .int(6)),
                CBORMapEntry(.int(Label.x), .bytes(key.rawRepresentation)),
            ]))
    }

    private static let field = "credentialPublicKey"

    /// A 32-byte coordinate.
    private static func coordinate(_ value: CBORValue?, name: String) throws(WebAuthnError) -> Data {
        guard let bytes = value?.bytesValue, bytes.count == 32 else {
            throw .malformed(field, "\(name) is not a 32-byte string")
        }
        return bytes
    }
}
