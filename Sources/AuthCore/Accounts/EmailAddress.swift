import Foundation

/// An email address as stored: NFC, trimmed of nothing (surrounding white space is refused),
/// compared case-insensitively through ``key``. The check is deliberately plain — one `@`,
/// a non-empty local part of at most 64 characters, a domain with a dot and no spaces, at
/// most 254 characters in all — because only a delivery proves an address works.
///
/// ```swift
/// let email = try EmailAddress("Alice@Example.com")
/// email.value   // "Alice@Example.com"
/// email.key     // "alice@example.com"
/// ```
public struct EmailAddress: Sendable, Hashable, CustomStringConvertible {
    /// The longest address accepted (RFC 5321's path limit less its brackets).
    public static let maximumLength = 254

    /// The address as given (NFC).
    public let value: String
    /// The lookup key: lower-cased. Unique among accounts.
    public let key: String

    /// Normalises and validates `raw`.
    /// - Throws: ``AuthError/invalidRequest(_:)`` naming `email`.
    public init(_ raw: String) throws {
        let normalized = raw.precomposedStringWithCanonicalMapping
        guard !normalized.isEmpty, normalized.count <= Self.maximumLength else {
            throw AuthError.invalidRequest("email must be 1 to \(Self.maximumLength) characters")
        }
        guard !normalized.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) else {
            throw AuthError.invalidRequest("email must not contain white space or control characters")
        }
        let parts = normalized.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].count <= 64,
            parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix(".")
        else {
            throw AuthError.invalidRequest("email must be an address such as name@example.com")
        }
        self.value = normalized
        self.key = normalized.lowercased()
    }

    /// The address.
    public var description: String { value }
}
