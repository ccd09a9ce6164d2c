import Foundation

/// What a `totp` matcher asks of a request value: a code of the key in `secret`, usually a
/// value saved from the enrolment's answer.
///
/// ```yaml
/// json: { code: { match: totp, secret: "{{totp_secret}}" } }   # digits: 6, period: 30, algorithm: SHA1
/// ```
///
/// ```swift
/// let spec = TOTPSpec(secret: "{{totp_secret}}")
/// try spec.totp(with: ["totp_secret": "JBSWY3DPEHPK3PXP"])?.code(at: Date())
/// ```
public struct TOTPSpec: Sendable, Hashable {
    /// The key in base32, as written: a `{{name}}` placeholder, or the text itself.
    public var secret: String
    /// Digits per code.
    public var digits: Int
    /// Seconds per time step.
    public var period: Int
    /// The HMAC's hash function.
    public var algorithm: TOTP.Algorithm

    /// Creates the options of a `totp` matcher; the defaults are RFC 6238's and every app's.
    public init(secret: String, digits: Int = 6, period: Int = 30, algorithm: TOTP.Algorithm = .sha1) {
        self.secret = secret
        self.digits = digits
        self.period = period
        self.algorithm = algorithm
    }

    /// The `{{name}}` placeholders of ``secret``.
    public var variables: [String] {
        Template.mayHavePlaceholders(secret) ? Template(secret).variables : []
    }

    /// The key, with ``secret``'s placeholders filled from `variables`; nil while one of them
    /// has no value.
    /// - Throws: ``TOTP/Error`` when the secret is not base32 or the options are out of range.
    public func totp(with variables: [String: JSONValue] = [:]) throws -> TOTP? {
        let text: String
        if Template.mayHavePlaceholders(secret) {
            guard let rendered = try? Template(secret).render(variables) else { return nil }
            text = rendered
        } else {
            text = secret
        }
        return try TOTP(secret: text, digits: digits, period: period, algorithm: algorithm)
    }

    /// The code a request sends: from `codes` (a run's), else the key's code now;
    /// ``placeholderCode`` while ``secret`` holds a placeholder (a contract checked without
    /// the values saved before it).
    /// - Throws: ``MatcherSampleError`` when the secret is not a key; what `codes` throws.
    func code(at path: String, codes: TOTPCodeGenerator?) throws -> String {
        let key: TOTP
        do {
            guard variables.isEmpty, let made = try totp() else { return placeholderCode }
            key = made
        } catch {
            throw MatcherSampleError(path: path, reason: "the totp secret \(JSONValue.string(secret)) is no key: \(error)")
        }
        return try codes?.code(for: key) ?? key.code(at: Date())
    }

    /// A code-shaped value that stands for a code no one can know in advance (an export's
    /// example): the first ``digits`` of `12345678`.
    public var placeholderCode: String { String("12345678".prefix(digits)) }

    /// The pattern every code matches: `[0-9]{6}` for six digits.
    public var pattern: String { "[0-9]{\(digits)}" }

    /// `a 6-digit TOTP code of {{totp_secret}}`.
    public var summary: String {
        var options = ["\(digits)-digit TOTP code"]
        if algorithm != .sha1 { options.append("HMAC-\(algorithm.rawValue)") }
        if period != 30 { options.append("\(period) s steps") }
        return "a " + options.joined(separator: ", ") + " of \(secret)"
    }

    /// Why `value` is not a code of this shape, or nil: a string of ``digits`` ASCII digits.
    func shapeProblem(_ value: JSONValue) -> String? {
        guard case .string(let text) = value, text.utf8.count == digits, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return summary
        }
        return nil
    }
}
