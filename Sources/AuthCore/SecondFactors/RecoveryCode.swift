import Crypto
import Foundation
import JOSE

/// One-time recovery codes, for a login when the authenticator app is lost: 80 random bits
/// as 16 base32 letters and digits in groups of four (`k7mq-2xhd-c4vr-pa6n` style), stored
/// only as the SHA-256 of their normalised form. At 80 bits a digest needs no slow hash.
///
/// ```swift
/// let fresh = RecoveryCode.generate()
/// RecoveryCode.hash(of: fresh.code.uppercased()) == fresh.hash   // true: case and hyphens do not matter
/// ```
public enum RecoveryCode {
    /// How many a confirmation issues.
    public static let count = 10

    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

    /// A new code and its stored digest.
    public static func generate() -> (code: String, hash: String) {
        let letters = SecureRandom.bytes(16).map { alphabet[Int($0 & 31)] }
        let groups = stride(from: 0, to: 16, by: 4).map { String(decoding: letters[$0..<$0 + 4], as: UTF8.self) }
        let code = groups.joined(separator: "-")
        return (code, SHA256.hexDigest(of: code.replacingOccurrences(of: "-", with: "")))
    }

    /// The digest of a presented code: lower-cased, without hyphens and spaces; nil when
    /// what is left is not 16 letters of the alphabet (no stored code can match it).
    public static func hash(of presented: String) -> String? {
        let normalized = presented.lowercased().filter { $0 != "-" && $0 != " " }
        guard normalized.utf8.count == 16, normalized.utf8.allSatisfy(alphabet.contains) else { return nil }
        return SHA256.hexDigest(of: normalized)
    }
}
