import Foundation

/// A username as stored, and as compared: PRECIS's UsernameCaseMapped profile (RFC 8265
/// §3.3) — fullwidth and halfwidth forms mapped to their ordinary ones (§3.3.1 step 1), NFC
/// (step 4), and compared case-insensitively through ``key`` (step 3) — so that "ａｌｉｃｅ"
/// is "alice" at sign-up, at login and in the CLI alike.
///
/// A name being registered is also held to the IdentifierClass's refusals that matter for
/// look-alikes (``validateNew()``): no invisible formatting or bidirectional controls, no
/// default-ignorable characters, no compatibility forms (ligatures, circled or font-variant
/// letters), no space but U+0020, nothing unassigned or private. A name already registered
/// keeps working whatever it holds: lookups only map and normalise.
///
/// ```swift
/// let name = try Username("Ame\u{301}lie")   // "Amélie" (NFC)
/// name.key                                   // "amélie"
/// try Username("ＡＬＩＣＥ").key             // "alice"
/// try Username("ali\u{200B}ce").validateNew() // throws: an invisible character
/// ```
public struct Username: Sendable, Hashable, CustomStringConvertible {
    /// The longest username accepted, in characters.
    public static let maximumLength = 64

    /// The width-mapped NFC form, as the user wrote it (case kept).
    public let value: String
    /// The lookup key: ``value`` lower-cased. Unique in storage.
    public let key: String

    /// Maps, normalises and validates `raw`.
    /// - Throws: ``AuthError/invalidRequest(_:)`` naming `username` when it is empty,
    ///   too long, or contains control characters.
    public init(_ raw: String) throws {
        let normalized = Self.widthMapped(raw).precomposedStringWithCanonicalMapping
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

    /// Checks that the name may be registered (sign-up, `authd user add`): the refusals of
    /// PRECIS's IdentifierClass (RFC 8264 §4.2, §9) that let one name pass for another.
    /// - Throws: ``AuthError/invalidRequest(_:)`` naming the first character refused.
    public func validateNew() throws {
        for scalar in value.unicodeScalars {
            let code = String(format: "U+%04X", scalar.value)
            let properties = scalar.properties
            switch properties.generalCategory {
            case .format:
                throw AuthError.invalidRequest("username must not contain invisible formatting or direction characters (\(code))")
            case .unassigned, .privateUse, .surrogate:
                throw AuthError.invalidRequest("username must not contain unassigned or private-use characters (\(code))")
            case .spaceSeparator where scalar != " ", .lineSeparator, .paragraphSeparator:
                throw AuthError.invalidRequest("username must not contain spaces other than U+0020 (\(code))")
            default:
                break
            }
            if properties.isDefaultIgnorableCodePoint {
                throw AuthError.invalidRequest("username must not contain invisible characters (\(code))")
            }
            // HasCompat (RFC 8264 §9.17): a character whose compatibility form differs, once
            // width is mapped — "ﬁ", "ⓐ", "ℌ", superscripts — looks like another name.
            let character = String(scalar)
            if character.precomposedStringWithCompatibilityMapping != character.precomposedStringWithCanonicalMapping {
                throw AuthError.invalidRequest(
                    "username must not contain compatibility characters such as ligatures or styled letters (\(code))")
            }
        }
    }

    /// The NFC form.
    public var description: String { value }

    /// `raw` with its fullwidth and halfwidth forms (the Halfwidth and Fullwidth Forms block,
    /// and the ideographic space) replaced by their decompositions: RFC 8265 §3.3.1's width
    /// mapping rule.
    static func widthMapped(_ raw: String) -> String {
        guard raw.unicodeScalars.contains(where: isWidthForm) else { return raw }
        var mapped = String.UnicodeScalarView()
        for scalar in raw.unicodeScalars {
            if isWidthForm(scalar) {
                mapped.append(contentsOf: String(scalar).precomposedStringWithCompatibilityMapping.unicodeScalars)
            } else {
                mapped.append(scalar)
            }
        }
        return String(mapped)
    }

    private static func isWidthForm(_ scalar: Unicode.Scalar) -> Bool {
        (0xFF01...0xFFEE).contains(scalar.value) || scalar.value == 0x3000
    }
}
