import Crypto
import Foundation
import JOSE

/// Opaque refresh tokens: 32 random bytes, base64url, stored only as their SHA-256.
///
/// ```swift
/// let fresh = RefreshToken.generate()
/// fresh.hash == RefreshToken.hash(of: fresh.token)   // true
/// ```
public enum RefreshToken {
    /// A new token and the hash that is stored for it.
    public static func generate() -> (token: String, hash: String) {
        let token = Base64URL.encode(Data(SecureRandom.bytes(32)))
        return (token, hash(of: token))
    }

    /// The stored form of `token`: hex SHA-256.
    public static func hash(of token: String) -> String {
        SHA256.hexDigest(of: token)
    }
}
