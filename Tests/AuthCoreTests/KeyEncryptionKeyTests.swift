import AuthCore
import Crypto
import Foundation
import Testing

/// The key-encryption key: parsing, sealing bound to the row, naming a wrong KEK, and
/// derived secrets.
@Suite struct KeyEncryptionKeyTests {
    static let bytes = Data((0..<32).map { UInt8($0) })
    let key = SigningKey.generate(now: Date(timeIntervalSince1970: 1_800_000_000))

    @Test func aSealedKeyOpensOnlyInItsOwnRowAndHoldsNoClearSeed() throws {
        let kek = try KeyEncryptionKey(bytes: Self.bytes)
        let sealed = try kek.seal(key)
        #expect(try kek.open(sealed) == key)
        #expect(sealed.keyEncryptionKeyFingerprint == kek.fingerprint)
        #expect(sealed.sealedPrivateKey.count == 12 + 32 + 16)
        #expect(sealed.sealedPrivateKey.range(of: key.privateKey) == nil)
        // The kid is the authenticated data: the blob copied to another key's row does not open.
        let other = SigningKey.generate(now: key.createdAt)
        let moved = SealedSigningKey(
            kid: other.kid, sealedPrivateKey: sealed.sealedPrivateKey, keyEncryptionKeyFingerprint: kek.fingerprint,
            createdAt: other.createdAt
        )
        let error = try #require(throws: SealingError.self) { try kek.open(moved) }
        #expect(!error.isWrongKey && "\(error)".contains(other.kid))
        var altered = sealed.sealedPrivateKey
        altered[20] ^= 1
        let tampered = SealedSigningKey(
            kid: key.kid, sealedPrivateKey: altered, keyEncryptionKeyFingerprint: kek.fingerprint, createdAt: key.createdAt)
        #expect(throws: SealingError.self) { try kek.open(tampered) }
    }

    @Test func aWrongKEKIsNamedByBothFingerprintsAndNoSecret() throws {
        let right = try KeyEncryptionKey(bytes: Self.bytes)
        let wrong = KeyEncryptionKey.generate()
        let sealed = try right.seal(key)
        let error = try #require(throws: SealingError.self) { try wrong.open(sealed) }
        #expect(error.isWrongKey)
        let text = "\(error)"
        #expect(text.contains(right.fingerprint) && text.contains(wrong.fingerprint) && text.contains(key.kid))
        for secret in [Self.bytes, key.privateKey] {
            #expect(!text.contains(secret.base64EncodedString()))
            #expect(!text.contains(secret.map { String(format: "%02x", $0) }.joined()))
        }
        #expect("\(right)" == "key-encryption key \(right.fingerprint)")
    }

    @Test func takesRawBytesOrBase64OfThirtyTwoBytesOnly() throws {
        let base64 = Self.bytes.base64EncodedString()
        let fingerprint = try KeyEncryptionKey(bytes: Self.bytes).fingerprint
        #expect(try KeyEncryptionKey(fileContents: Self.bytes).fingerprint == fingerprint)
        #expect(try KeyEncryptionKey(fileContents: Data((base64 + "\n").utf8)).fingerprint == fingerprint)
        #expect(try KeyEncryptionKey(base64: " \(base64)\n").fingerprint == fingerprint)
        #expect(fingerprint.count == 16 && fingerprint.allSatisfy(\.isHexDigit))
        for refused in [Data(count: 31), Data(count: 33), Data(Data(count: 16).base64EncodedString().utf8), Data("not base64!".utf8)] {
            let error = try #require(throws: KeyEncryptionKey.Invalid.self) { try KeyEncryptionKey(fileContents: refused) }
            #expect("\(error)".contains("head -c 32 /dev/urandom | base64"))
        }
        #expect(throws: KeyEncryptionKey.Invalid.self) { try KeyEncryptionKey(base64: "") }
    }

    @Test func derivedKeysAreBoundToTheirPurpose() throws {
        let kek = try KeyEncryptionKey(bytes: Self.bytes)
        let again = try KeyEncryptionKey(bytes: Self.bytes)
        let throttle = kek.derivedKey(purpose: "throttle-counters")
        #expect(throttle == again.derivedKey(purpose: "throttle-counters"))
        #expect(throttle != kek.derivedKey(purpose: "signing-key-sealing"))
        #expect(throttle != SymmetricKey(data: Self.bytes))
        #expect(throttle.bitCount == 256)
        #expect(KeyEncryptionKey.generate().derivedKey(purpose: "throttle-counters") != throttle)
    }
}
