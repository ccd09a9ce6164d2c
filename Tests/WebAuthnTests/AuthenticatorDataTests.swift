import Crypto
import Foundation
import Testing

@testable import WebAuthn

/// Authenticator data: each part at its offset, every length checked, nothing left over.
@Suite struct AuthenticatorDataTests {
    static let rpIDHash = Data(SHA256.hash(data: Data("example.org".utf8)))
    static let coseKey = COSEKey.encoded(Curve25519.Signing.PrivateKey().publicKey)

    static func attested(flags: UInt8, idLength: Int, id: Data? = nil, key: Data = coseKey) -> Data {
        var data = rpIDHash + Data([flags, 0, 0, 0, 9])
        data += Data((0..<16).map { UInt8($0) })
        data += Data([UInt8(idLength >> 8), UInt8(idLength & 0xff)])
        data += id ?? Data(repeating: 0xab, count: idLength)
        return data + key
    }

    @Test func readsTheFixedPartBigEndian() throws {
        let data = try AuthenticatorData(bytes: Self.rpIDHash + Data([0x1d, 0x01, 0x02, 0x03, 0x04]))
        #expect(data.rpIDHash == Self.rpIDHash)
        #expect(data.flags == [.userPresent, .userVerified, .backupEligible, .backupState])
        #expect(data.signCount == 0x0102_0304)
        #expect(data.attestedCredentialData == nil && data.extensions == nil)
        #expect(try AuthenticatorData(bytes: Self.rpIDHash + Data([0x01, 0xff, 0xff, 0xff, 0xff])).signCount == .max)
    }

    @Test func readsAttestedCredentialDataAndKeepsTheKeyBytes() throws {
        let data = try AuthenticatorData(bytes: Self.attested(flags: 0x45, idLength: 20))
        let attested = try #require(data.attestedCredentialData)
        #expect(attested.aaguid.uuidString == "00010203-0405-0607-0809-0A0B0C0D0E0F")
        #expect(attested.credentialID == Data(repeating: 0xab, count: 20))
        #expect(attested.credentialPublicKey == Self.coseKey)
        #expect(data.signCount == 9)
    }

    @Test func readsExtensionsAfterTheCredential() throws {
        let extensions = CBOREncoder.encode(.map([.init(.text("credProtect"), .int(2))]))
        let data = try AuthenticatorData(bytes: Self.attested(flags: 0xc5, idLength: 16) + extensions)
        #expect(data.extensions?["credProtect"]?.intValue == 2)
        #expect(data.attestedCredentialData?.credentialPublicKey == Self.coseKey)
        let assertion = try AuthenticatorData(bytes: Self.rpIDHash + Data([0x81, 0, 0, 0, 1]) + extensions)
        #expect(assertion.extensions != nil)
    }

    @Test func aCredentialIDOf1023BytesIsTheLongestAccepted() throws {
        #expect(try AuthenticatorData(bytes: Self.attested(flags: 0x41, idLength: 1023)).attestedCredentialData?.credentialID.count == 1023)
        let error = try #require(throws: WebAuthnError.self) { try AuthenticatorData(bytes: Self.attested(flags: 0x41, idLength: 1024)) }
        #expect(error.check == .credentialID)
        // 65535 announced, with far fewer bytes.
        #expect(throws: WebAuthnError.self) {
            try AuthenticatorData(bytes: Self.attested(flags: 0x41, idLength: 0xffff, id: Data(count: 10)))
        }
    }

    static let malformed: [(String, Data)] = [
        ("short", Data(count: 36)),
        ("AT without its data", rpIDHash + Data([0x41, 0, 0, 0, 0]) + Data(count: 17)),
        ("ID longer than what is left", attested(flags: 0x41, idLength: 40, id: Data(count: 10), key: Data())),
        ("no key after the ID", attested(flags: 0x41, idLength: 16, key: Data())),
        ("a truncated key", attested(flags: 0x41, idLength: 16, key: coseKey.dropLast())),
        ("bytes after the key", attested(flags: 0x41, idLength: 16) + Data([0])),
        ("bytes after the fixed part", rpIDHash + Data([0x01, 0, 0, 0, 0, 0xa0])),
        ("ED without extensions", rpIDHash + Data([0x81, 0, 0, 0, 0])),
        ("ED with an array", rpIDHash + Data([0x81, 0, 0, 0, 0, 0x80])),
        ("ED with bytes after the map", rpIDHash + Data([0x81, 0, 0, 0, 0, 0xa0, 0xa0])),
        (
            "a huge length in the key",
            attested(flags: 0x41, idLength: 16, key: Data([0x5b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]))
        ),
    ]

    @Test(arguments: malformed)
    func malformedDataIsRefused(name: String, bytes: Data) throws {
        let error = try #require(throws: WebAuthnError.self) { try AuthenticatorData(bytes: bytes) }
        #expect(error.isMalformed, "\(name)")
    }
}
