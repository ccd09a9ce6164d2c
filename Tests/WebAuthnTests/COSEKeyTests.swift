import Crypto
import Foundation
import Testing

@testable import WebAuthn

/// COSE keys: the three algorithms parse and verify their signatures; other curves,
/// algorithms, sizes and shapes are refused.
@Suite struct COSEKeyTests {
    static func coseKey(_ entries: [(Int, CBORValue)]) -> Data {
        CBOREncoder.encode(.map(entries.map { CBORMapEntry(.int($0.0), $0.1) }))
    }

    @Test func anES256KeyVerifiesDERSignaturesOnly() throws {
        let privateKey = P256.Signing.PrivateKey()
        let key = try COSEKey(bytes: COSEKey.encoded(privateKey.publicKey))
        #expect(key.algorithm == .es256)
        let data = Data("signed".utf8)
        let signature = try privateKey.signature(for: data)
        #expect(key.isValidSignature(signature.derRepresentation, for: data))
        #expect(!key.isValidSignature(signature.rawRepresentation, for: data))
        #expect(!key.isValidSignature(signature.derRepresentation, for: Data("other".utf8)))
        #expect(!key.isValidSignature(Data(), for: data))
    }

    @Test func anEdDSAKeyVerifiesEd25519Signatures() throws {
        let privateKey = Curve25519.Signing.PrivateKey()
        let key = try COSEKey(bytes: COSEKey.encoded(privateKey.publicKey))
        #expect(key.algorithm == .edDSA)
        let data = Data("signed".utf8)
        var signature = try privateKey.signature(for: data)
        #expect(key.isValidSignature(signature, for: data))
        signature[0] ^= 1
        #expect(!key.isValidSignature(signature, for: data))
        #expect(!key.isValidSignature(Data(count: 3), for: data))
    }

    @Test func anRS256KeyOfTheW3CVectorParses() throws {
        let vector = try #require(W3CTestVector.named("packed-rs256"))
        let object = try AttestationObject(bytes: WebAuthnFixtures.hex(vector.attestationObject))
        let key = try COSEKey(bytes: try #require(object.authenticatorData.attestedCredentialData).credentialPublicKey)
        #expect(key.algorithm == .rs256)
        #expect(!key.isValidSignature(Data(count: 436), for: Data("x".utf8)))
    }

    @Test func rsaKeysBelow2048BitsAreRejected() throws {
        let n = Data([0xc0]) + Data(repeating: 0xff, count: 126) + Data([0x01])  // 1024 bits
        let error = try #require(throws: WebAuthnError.self) {
            try COSEKey(bytes: Self.coseKey([(1, .int(3)), (3, .int(-257)), (-1, .bytes(n)), (-2, .bytes(Data([1, 0, 1])))]))
        }
        #expect(error.check == .algorithm)
        let even = Data([0xc0]) + Data(repeating: 0xff, count: 255)
        #expect(throws: WebAuthnError.malformed("credentialPublicKey", "e is not an odd exponent of at most 8 bytes")) {
            try COSEKey(bytes: Self.coseKey([(1, .int(3)), (3, .int(-257)), (-1, .bytes(even)), (-2, .bytes(Data([1, 0, 0])))]))
        }
    }

    @Test(arguments: [
        [(1, CBORValue.int(2)), (3, .int(-35)), (-1, .int(2))],  // ES384
        [(1, .int(2)), (3, .int(-36)), (-1, .int(3))],  // ES512
        [(1, .int(1)), (3, .int(-8)), (-1, .int(7)), (-2, .bytes(Data(count: 57)))],  // Ed448
        [(1, .int(2)), (3, .int(-7)), (-1, .int(8)), (-2, .bytes(Data(count: 32))), (-3, .bytes(Data(count: 32)))],  // secp256k1 curve
        [(1, .int(3)), (3, .int(-37))],  // PS256
    ])
    func otherAlgorithmsAndCurvesAreRejected(entries: [(Int, CBORValue)]) throws {
        let error = try #require(throws: WebAuthnError.self) { try COSEKey(bytes: Self.coseKey(entries)) }
        #expect(error.check == .algorithm)
    }

    @Test func malformedKeysAreMalformed() throws {
        let good = P256.Signing.PrivateKey().publicKey.x963Representation
        let x = CBORValue.bytes(good.dropFirst().prefix(32))
        let y = CBORValue.bytes(good.suffix(32))
        let cases: [Data] = [
            CBOREncoder.encode(.array([])),
            Self.coseKey([(3, .int(-7))]),  // no kty
            Self.coseKey([(1, .int(2))]),  // no alg
            Self.coseKey([(1, .int(1)), (3, .int(-7)), (-1, .int(1)), (-2, x), (-3, y)]),  // kty OKP for ES256
            Self.coseKey([(1, .int(2)), (3, .int(-7)), (-1, .int(1)), (-2, .bytes(Data(count: 31))), (-3, y)]),
            Self.coseKey([(1, .int(2)), (3, .int(-7)), (-1, .int(1)), (-2, x)]),  // no y
            Self.coseKey([(1, .int(2)), (3, .int(-7)), (-1, .int(1)), (-2, x), (-3, .bool(true))]),  // compressed
            Self.coseKey([(1, .int(2)), (3, .int(-7)), (-1, .int(1)), (-2, .bytes(Data(count: 32))), (-3, .bytes(Data(count: 32)))]),
            Self.coseKey([(1, .int(1)), (3, .int(-8)), (-1, .int(6)), (-2, .bytes(Data(count: 33)))]),
            Self.coseKey([(1, .int(3)), (3, .int(-257)), (-1, .bytes(Data(count: 256)))]),  // no e
            COSEKey.encoded(P256.Signing.PrivateKey().publicKey) + Data([0]),  // trailing byte
        ]
        for bytes in cases {
            let error = try #require(throws: WebAuthnError.self) { try COSEKey(bytes: bytes) }
            #expect(error.isMalformed, "\(WebAuthnFixtures.hexString(bytes)): \(error)")
        }
    }

    @Test func keysAreEqualByTheirBytes() throws {
        let bytes = COSEKey.encoded(Curve25519.Signing.PrivateKey().publicKey)
        #expect(try COSEKey(bytes: bytes) == COSEKey(bytes: bytes))
        #expect(try COSEKey(bytes: bytes) != COSEKey(bytes: COSEKey.encoded(Curve25519.Signing.PrivateKey().publicKey)))
    }
}
