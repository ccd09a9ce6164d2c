import Crypto
import Foundation

/// The hash of a token an ID token carries to bind it (OpenID Connect Core §3.1.3.6
/// `at_hash`, §3.3.2.11 `c_hash`): the left half of the hash of the token's ASCII, base64url,
/// with the hash of the ID token's `alg` — SHA-256 for the `*256` algorithms, SHA-384 and
/// SHA-512 for theirs, and SHA-512 for EdDSA with Ed25519. The one computation, for the ID
/// tokens authd signs and the contracts' `at_hash` matcher.
///
/// ```swift
/// TokenHash.of("jHkWEdUXMU1BwAsC4vtUsZwnq6ExCoF0BxFmwuSqoG0", algorithm: "RS256")   // "aDoHyhmpZ2DR5itgB2nyrQ"
/// ```
public enum TokenHash {
    /// The hash of `token` for an ID token signed with `algorithm`.
    public static func of(_ token: String, algorithm: String) -> String {
        let data = Data(token.utf8)
        let digest: [UInt8] =
            switch algorithm {
            case "RS384", "ES384", "PS384": Array(SHA384.hash(data: data))
            case "RS512", "ES512", "PS512", "EdDSA": Array(SHA512.hash(data: data))
            default: Array(SHA256.hash(data: data))
            }
        return Base64URL.encode(Data(digest.prefix(digest.count / 2)))
    }

    /// Whether `text` has the form of one: the base64url of 16, 24 or 32 bytes.
    public static func isHash(_ text: String) -> Bool {
        [22, 32, 43].contains(text.utf8.count) && Base64URL.decode(text) != nil
    }
}
