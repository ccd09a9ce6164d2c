import Foundation

/// A username as stored: Unicode NFC-normalised, compared case-insensitively through ``key``.
///
/// ```swift
/// let name = try Username("Ame\u{301}lie")   // "Amélie" (NFC)
/// name.key                                   // "amélie"
/// ```
public struct Username: Sendable, Hashable, CustomStringConvertible {
    /// The longest username accepted, in characters.
    public static let maximumLength = 64

    /// The NFC form, as the user wrote it (case kept).
    public let value: String
    /// The lookup key: the NFC form lower-cased. Unique in storage.
    public let key: String

    /// Normalises and validates `raw`.
    /// - Throws: ``AuthError/invalidRequest(_:)`` naming `username` when it is empty,
    ///   too long, or contains control characters.
    public init(_ raw: String) throws {
        let normalized = raw.precomposedStringWithCanonicalMapping
        guard !normalized.isEmpty else { throw AuthError.invalidRequest("username must not be empty") }
        guard normalized.count <= Self.maximumLength else {
            throw AuthError.invalidRequest("username must be at most \(Self.maximumLength) characters")
        }
        guard !normalized.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw AuthError.invalidRequest("username must not contain control characters")
        }
        guard normalized.trimmingCharacters(in: .whitespaces) == normalized else {
            throw AuthError.invalidRequest("username must not start or end with white space")
        }
        self.value = normalized
        self.key = normalized.lowercased()
    }

    /// The NFC form.
    public var description: String { value }
}
