import Crypto
import Foundation
import JOSE

/// Opaque bearer secrets (refresh tokens, password-reset and email-verification tokens):
/// 32 random bytes, base64url, stored only as their SHA-256. A token of 256 random bits
/// needs no slow hash: nobody can guess one to test against the digest.
///
/// ```swift
/// let fresh = OpaqueToken.generate()
/// fresh.hash == OpaqueToken.hash(of: fresh.token)   // true
/// ```
public enum OpaqueToken {
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

/// Refresh tokens are opaque tokens.
///
/// ```swift
/// let (token, hash) = RefreshToken.generate()
/// ```
public typealias RefreshToken = OpaqueToken
