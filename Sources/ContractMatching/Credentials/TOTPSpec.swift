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
    func code(at path: String, codes: (any TOTPCodeSource)?) throws -> String {
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

/// `{ match: totp, secret: "{{totp_secret}}" }`, in requests only: the verifier sends a code
/// it computes, the stub accepts one valid now and not replayed.
extension TOTPSpec: MatcherKind {
    public static let names = ["totp"]
    public static func parameters(of name: String) -> [String] { ["secret", "digits", "period", "algorithm"] }
    /// A code depends on the moment: no example can be written down.
    public static var takesExample: Bool { false }

    /// `secret` (required: base32, or a `{{name}}`), `digits` 6–8, `period` in seconds,
    /// `algorithm` SHA1, SHA256 or SHA512.
    public static func read(_ name: String, from arguments: inout some MatcherArguments) -> Self? {
        guard arguments.inRequest else {
            arguments.error(at: nil, "a totp matcher belongs in a request (a code the verifier computes), not in a response or a delivery")
            return nil
        }
        guard arguments.require("secret", of: name, "the key in base32, usually a saved value such as \"{{totp_secret}}\""),
            let secret = arguments.string("secret")
        else { return nil }
        var spec = TOTPSpec(secret: secret)
        var ok = true
        if spec.variables.isEmpty, Base32.decode(secret)?.isEmpty ?? true {
            arguments.error(
                at: "secret",
                "secret must be base32 (letters A–Z and digits 2–7) or a saved value such as \"{{totp_secret}}\", not '\(secret)'")
            ok = false
        }
        if arguments.has("digits") {
            if let digits = arguments.integer("digits"), TOTP.allowedDigits.contains(digits) {
                spec.digits = digits
            } else {
                if case .integer? = arguments.scalar("digits") { arguments.error(at: "digits", "digits must be from 6 to 8") }
                ok = false
            }
        }
        if arguments.has("period") {
            if let period = arguments.integer("period"), period >= 1 {
                spec.period = period
            } else {
                if case .integer? = arguments.scalar("period") { arguments.error(at: "period", "period must be at least 1 (seconds)") }
                ok = false
            }
        }
        if arguments.has("algorithm") {
            if let algorithm = arguments.choice("algorithm", TOTP.Algorithm.allCases.map { ($0.rawValue, $0) }) {
                spec.algorithm = algorithm
            } else {
                ok = false
            }
        }
        return ok ? spec : nil
    }

    public var arguments: [(key: String, value: MatcherArgument)] {
        let defaults = TOTPSpec(secret: secret)
        var written: [(key: String, value: MatcherArgument)] = [("secret", .value(.string(secret)))]
        if digits != defaults.digits { written.append(("digits", .value(.integer(digits)))) }
        if period != defaults.period { written.append(("period", .value(.integer(period)))) }
        if algorithm != defaults.algorithm { written.append(("algorithm", .value(.string(algorithm.rawValue)))) }
        return written
    }

    public var ownVariables: [String] { variables }

    public func resolvingOwn(with variables: [String: JSONValue], undefined: inout [String]) -> Self {
        guard !self.variables.isEmpty else { return self }
        let template = Template(secret)
        let missing = template.requiredVariables.filter { variables[$0] == nil }
        guard missing.isEmpty, let rendered = try? template.render(variables) else {
            undefined += missing
            return self
        }
        var resolved = self
        resolved.secret = rendered
        return resolved
    }

    /// The shape; and, for a key written out, a code of it within one step of now.
    public func mismatches(in actual: JSONValue, at path: String, strict: Bool) -> [Mismatch] {
        if let problem = shapeProblem(actual) { return [Mismatch(path: path, expected: problem, actual: Mismatch.describe(actual))] }
        guard case .string(let code) = actual, variables.isEmpty, let totp = try? totp() else { return [] }
        return totp.step(of: code, near: Date()) == nil
            ? [Mismatch(path: path, expected: summary + " valid now", actual: Mismatch.describe(actual))] : []
    }

    public var jsonType: String? { "string" }
    /// The stub takes a code only when it is valid, as narrow as a literal.
    public var specificity: Int { 4 }

    public func sample(at path: String, example: JSONValue?, with context: SampleContext) throws -> JSONValue {
        .string(try code(at: path, codes: context.codes))
    }

    public func jsonSchema(child: (Matcher) -> [String: JSONValue]) -> [String: JSONValue] {
        let hash = algorithm == .sha1 ? "" : ", HMAC-\(algorithm.rawValue)"
        return [
            "type": "string", "pattern": .string("^\(pattern)$"),
            "description": .string("A TOTP code (RFC 6238\(hash), \(period)-second steps) of the key the client was given."),
        ]
    }

    public func pact(_ pact: inout some PactRendering, at path: String, example: JSONValue?) -> JSONValue? {
        pact.note(
            "\(path) is a TOTP code of \(secret): Pact cannot compute one, so the verifier sends the example \(placeholderCode), which a provider refuses (contract verify sends a valid code)"
        )
        pact.addRules([PactMatchingRule.regex(pattern)], at: path)
        return .string(placeholderCode)
    }
}

extension Matcher.Kind {
    /// A TOTP code of `spec`'s key (``TOTPSpec``).
    public static func totp(_ spec: TOTPSpec) -> Self { .typed(spec) }
}
