import Foundation
import JOSE

@testable import WebAuthn

/// What the WebAuthn tests share: hex, a relying party for example.org, a user, challenges.
enum WebAuthnFixtures {
    static let origin = "https://example.org"

    /// example.org, https://example.org, UV preferred, default policy.
    static func relyingParty(userVerification: UserVerificationRequirement = .preferred) -> WebAuthnRelyingParty {
        WebAuthnRelyingParty(id: "example.org", name: "Example", origins: [origin], userVerification: userVerification)
    }

    static let user = PublicKeyCredentialCreationOptionsJSON.UserEntity(
        id: Data("user-handle-0001".utf8), name: "alice", displayName: "Alice"
    )

    /// 32 bytes that differ per `seed`.
    static func challenge(_ seed: UInt8) -> Data {
        Data((0..<32).map { seed &+ UInt8($0) })
    }

    /// The bytes of a hex string (test input only: traps on bad hex).
    static func hex(_ text: String) -> Data {
        let digits = Array(text.utf8)
        precondition(digits.count % 2 == 0, "odd hex")
        return Data(
            stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! })
    }

    static func hexString(_ data: Data) -> String {
        data.map { String(format: "%02x", $0) }.joined()
    }
}
