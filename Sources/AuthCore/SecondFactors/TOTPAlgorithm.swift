import Foundation

/// What computes TOTP codes (RFC 6238: HMAC-SHA1, 6 digits, 30-second steps). authd
/// composes HummingbirdOTP's implementation (`HummingbirdTOTP` in AuthServer); the rules
/// around it (which steps are accepted, once each, compared in constant time) are
/// ``SecondFactorService``'s.
///
/// ```swift
/// struct Fixed: TOTPAlgorithm { func code(secret: TOTPSecret, step: Int64) -> String { "123456" } }
/// ```
public protocol TOTPAlgorithm: Sendable {
    /// The code of time step `step` (Unix time ÷ ``TOTPPolicy/period``) for `secret`:
    /// ``TOTPPolicy/digits`` decimal digits, with leading zeros.
    func code(secret: TOTPSecret, step: Int64) -> String
}

/// The TOTP parameters authd gives every app, and how much clock drift it forgives.
///
/// ```swift
/// TOTPPolicy.step(at: Date(timeIntervalSince1970: 59))   // 1
/// ```
public enum TOTPPolicy {
    /// Seconds per step.
    public static let period = 30
    /// Digits per code.
    public static let digits = 6
    /// Steps accepted either side of the current one.
    public static let skew: Int64 = 1

    /// The time step `date` falls in.
    public static func step(at date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / Double(period)).rounded(.down))
    }

    /// `code` without the spaces an app shows in the middle, if it is ``digits`` ASCII digits.
    /// - Throws: ``AuthError/invalidRequest(_:)`` otherwise.
    public static func normalized(_ code: String) throws -> String {
        let digitsOnly = code.filter { $0 != " " }
        guard digitsOnly.utf8.count == digits, digitsOnly.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw AuthError.invalidRequest("code must be \(digits) digits")
        }
        return digitsOnly
    }
}
