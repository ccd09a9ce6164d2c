import AuthCore
import ExtrasBase64
import HummingbirdOTP

/// authd's TOTP codes, computed by HummingbirdOTP (hummingbird-auth): the HOTP of the time
/// step (RFC 4226 §5.3 truncation, HMAC-SHA1, 6 digits), as RFC 6238 defines TOTP.
///
/// ```swift
/// let factors = SecondFactorService(login: login, algorithm: HummingbirdTOTP(), keyEncryptionKey: kek)
/// HummingbirdTOTP.authenticatorURI(secret: secret, account: "alice", issuer: "authd")
/// // otpauth://totp/authd:alice?secret=…&issuer=authd
/// ```
public struct HummingbirdTOTP: TOTPAlgorithm {
    /// Creates the algorithm.
    public init() {}

    public func code(secret: TOTPSecret, step: Int64) -> String {
        let value = HOTP(secret: secret.text, length: TOTPPolicy.digits).compute(counter: UInt64(clamping: step))
        let digits = String(value)
        return String(repeating: "0", count: max(0, TOTPPolicy.digits - digits.count)) + digits
    }

    /// The key as an app takes it typed in: RFC 4648 base32 without padding.
    public static func base32(_ secret: TOTPSecret) -> String {
        String(base32Encoding: secret.bytes, options: .omitPaddingCharacter)
    }

    /// The `otpauth://totp/` URI an app takes from a QR code (Google Authenticator's key URI
    /// format): labelled `issuer:account`, with the default parameters (SHA1, 6 digits, 30 s)
    /// left implicit.
    public static func authenticatorURI(secret: TOTPSecret, account: String, issuer: String) -> String {
        TOTP(secret: secret.text, length: TOTPPolicy.digits, timeStep: TOTPPolicy.period)
            .createAuthenticatorURL(label: "\(issuer):\(account)", issuer: issuer)
    }
}
