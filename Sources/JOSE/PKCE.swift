import Crypto
import Foundation

/// Proof Key for Code Exchange with S256 (RFC 7636): the one computation of a challenge from
/// a verifier, for the codes authd issues, the attempts it makes at providers, and the
/// contracts' `pkce_s256` matcher.
///
/// ```swift
/// PKCE.challenge(of: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")   // "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
/// PKCE.verifier("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", answers: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")   // true
/// ```
public enum PKCE {
    /// The S256 challenge of `verifier` (§4.2): BASE64URL(SHA256(verifier)).
    public static func challenge(of verifier: String) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))
    }

    /// Whether `text` has a verifier's form: 43 to 128 of `[A-Za-z0-9-._~]` (§4.1).
    public static func isVerifier(_ text: String) -> Bool {
        (43...128).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || "-._~".utf8.contains(byte)
            }
    }

    /// Whether `text` has an S256 challenge's form: 43 characters of base64url.
    public static func isChallenge(_ text: String) -> Bool {
        text.utf8.count == 43 && Base64URL.decode(text) != nil
    }

    /// Whether `verifier` answers `challenge` (§4.6), compared in constant time; a verifier
    /// of the wrong form answers nothing.
    public static func verifier(_ verifier: String, answers challenge: String) -> Bool {
        isVerifier(verifier) && ConstantTime.equal(Array(Self.challenge(of: verifier).utf8), Array(challenge.utf8))
    }
}
