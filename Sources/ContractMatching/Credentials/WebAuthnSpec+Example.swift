import Crypto
import Foundation
import JOSE
import WebAuthn

extension WebAuthnSpec {
    /// A fixed response of this ceremony's shape, for places that show a value without a
    /// run (an export's example, a contract checked before its options are saved): it parses
    /// as a `RegistrationResponseJSON` (attestation `none`, an Ed25519 key) or an
    /// `AuthenticationResponseJSON` for ``origin``, but answers a challenge of zeros and
    /// carries no valid signature, so no relying party accepts it. The same every time, so
    /// an exported file does not change from run to run.
    ///
    /// ```swift
    /// WebAuthnSpec(.assertion, options: "{{request}}", origin: "https://example.com", authenticator: "a").exampleCredential["type"]
    /// // "public-key"
    /// ```
    public var exampleCredential: JSONValue {
        let id = Data((0..<16).map { UInt8($0) })
        let rpID = URLComponents(string: origin)?.host ?? origin
        var flags: UInt8 = userVerified ? 0x05 : 0x01  // UP, and UV
        var authenticatorData = Data(SHA256.hash(data: Data(rpID.utf8)))
        let clientData: JSONValue = [
            "type": .string(ceremony == .registration ? "webauthn.create" : "webauthn.get"),
            "challenge": .string(Base64URL.encode(Data(count: 32))), "origin": .string(origin), "crossOrigin": false,
        ]
        let clientDataJSON = Data(clientData.description.utf8)
        let encoded: Data?
        switch ceremony {
        case .registration:
            flags |= 0x40  // AT: attested credential data follows
            authenticatorData.append(flags)
            authenticatorData.append(contentsOf: [0, 0, 0, 0] + [UInt8](repeating: 0, count: 16) + [0, UInt8(id.count)])
            authenticatorData.append(id)
            authenticatorData.append(
                CBOREncoder.encode(
                    .map([
                        CBORMapEntry(.int(1), .int(1)), CBORMapEntry(.int(3), .int(COSEAlgorithm.edDSA.rawValue)),
                        CBORMapEntry(.int(-1), .int(6)), CBORMapEntry(.int(-2), .bytes(Self.examplePublicKey)),
                    ])))
            let object = CBOREncoder.encode(
                .map([
                    CBORMapEntry(.text("fmt"), .text("none")), CBORMapEntry(.text("attStmt"), .map([])),
                    CBORMapEntry(.text("authData"), .bytes(authenticatorData)),
                ]))
            let response = RegistrationResponseJSON(
                id: Base64URL.encode(id), rawId: id,
                response: .init(
                    clientDataJSON: clientDataJSON, attestationObject: object, transports: ["internal"],
                    authenticatorData: authenticatorData,
                    publicKeyAlgorithm: COSEAlgorithm.edDSA.rawValue
                ),
                authenticatorAttachment: "platform"
            )
            encoded = try? Self.exampleEncoder.encode(response)
        case .assertion:
            authenticatorData.append(flags)
            authenticatorData.append(contentsOf: [0, 0, 0, 1])
            let response = AuthenticationResponseJSON(
                id: Base64URL.encode(id), rawId: id,
                response: .init(clientDataJSON: clientDataJSON, authenticatorData: authenticatorData, signature: Data(count: 64)),
                authenticatorAttachment: "platform"
            )
            encoded = try? Self.exampleEncoder.encode(response)
        }
        // Encoding these values cannot fail.
        return encoded.flatMap { try? JSONValue(parsing: $0) } ?? .object([:])
    }

    /// RFC 8032's first Ed25519 test public key.
    private static let examplePublicKey = Data(
        [
            0xd7, 0x5a, 0x98, 0x01, 0x82, 0xb1, 0x0a, 0xb7, 0xd5, 0x4b, 0xfe, 0xd3, 0xc9, 0x64, 0x07, 0x3a,
            0x0e, 0xe1, 0x72, 0xf3, 0xda, 0xa6, 0x23, 0x25, 0xaf, 0x02, 0x1a, 0x68, 0xf7, 0x07, 0x51, 0x1a,
        ]
    )

    private static var exampleEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
