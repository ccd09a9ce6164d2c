import Foundation
import JOSE

/// What a contract expects of a JSON value: a literal, a structure of matchers, or a
/// typed matcher (`{ match: integer, min: 1 }`), each with an optional `example`; a key of an
/// object may be `optional` (absent, or present and matching), and `one_of` takes any of
/// several matchers.
///
/// ```swift
/// let matcher = Matcher(.integer(min: 1, max: nil), example: .integer(900))
/// matcher.mismatches(in: .integer(900))   // []
/// matcher.mismatches(in: .string("900"))  // ["$: expected an integer, got string \"900\""]
/// ```
public struct Matcher: Sendable, Equatable {
    /// The kinds of matcher.
    public indirect enum Kind: Sendable, Equatable {
        /// A scalar that must be equal (integers equal numbers of the same value).
        case literal(JSONValue)
        /// An object whose listed keys must match; others are allowed unless strict.
        case object([String: Matcher])
        /// An array of exactly these elements.
        case array([Matcher])
        case string(minLength: Int?, maxLength: Int?)
        case integer(min: Double?, max: Double?)
        case number(min: Double?, max: Double?)
        case boolean
        case null
        case any
        /// A string matching the whole pattern.
        case regex(String)
        case uuid
        /// An RFC 3339 date-time string.
        case datetime
        /// A compact JWT whose header and payload are JSON objects, and whose payload's
        /// claims match `claims` (claims not listed are free). The stub mints its tokens
        /// with claims that satisfy them.
        case jwt(claims: [String: Matcher])
        /// An array whose every element matches `of`, with a count in `min...max`.
        case each(of: Matcher, min: Int?, max: Int?)
        /// A JSON Web Key Set (RFC 7517) of `min...max` keys, each with `kty` and `kid`;
        /// Ed25519 keys (`kty: OKP`) with `crv` and a 32-byte base64url `x`. The stub
        /// answers it with its own signing key, the one its `jwt`s are signed with.
        case jwks(min: Int?, max: Int?)
        /// A TOTP code (RFC 6238) of the key in the spec's `secret`, in requests only: the
        /// verifier sends one it computes, the stub accepts one valid now and not replayed.
        case totp(TOTPSpec)
        /// A WebAuthn credential (`webauthn_registration` or `webauthn_assertion`), in requests
        /// only: the verifier's software authenticator makes one for the saved options, the stub
        /// accepts one that verifies against them as a relying party would.
        case webauthn(WebAuthnSpec)
        /// A value that matches any of these (`{ match: one_of, of: [...] }`); the stub and the
        /// verifier use the first (or the `example`), and `contract verify` reports an
        /// alternative the provider never answered with.
        case oneOf([Matcher])
        /// HTTP Basic credentials (`{ match: basic_auth, username: …, password: … }`), usually
        /// the value of `Authorization`: `Basic base64(username:password)` whose two parts match
        /// their matchers. The verifier sends the credentials of both parts' values; a password
        /// that does not match is reported without being shown.
        case basicAuth(username: Matcher, password: Matcher)
    }

    /// What is expected.
    public let kind: Kind
    /// A value the stub can answer with (validated against the matcher when loaded).
    public let example: JSONValue?
    /// As a key of an object: the key may be absent (`optional: true`); when present, its
    /// value must match.
    public let optional: Bool

    /// Creates a matcher.
    public init(_ kind: Kind, example: JSONValue? = nil, optional: Bool = false) {
        self.kind = kind
        self.example = example
        self.optional = optional
    }

    /// This matcher as an optional key's (or not).
    ///
    /// ```swift
    /// Matcher(.string(minLength: 1, maxLength: nil)).optional(true)   // { match: string, min_length: 1, optional: true }
    /// ```
    public func optional(_ optional: Bool) -> Matcher {
        Matcher(kind, example: example, optional: optional)
    }

    /// A matcher for exactly `value`, recursively.
    public static func literal(_ value: JSONValue) -> Matcher {
        switch value {
        case .object(let members): Matcher(.object(members.mapValues(literal)))
        case .array(let elements): Matcher(.array(elements.map(literal)))
        default: Matcher(.literal(value))
        }
    }

    /// Each matcher name accepted after `match:`, in the order errors list them, with the
    /// keys it takes besides `match`, `example` and `optional`: the one list of names (the YAML
    /// reader checks a matcher's keys against it).
    public static let parameters: KeyValuePairs<String, [String]> = [
        "string": ["min_length", "max_length"], "integer": ["min", "max"], "number": ["min", "max"], "boolean": [], "null": [],
        "any": [], "regex": ["pattern"], "uuid": [], "datetime": [], "jwt": ["claims"], "jwks": ["min", "max"],
        "each": ["of", "min", "max"], "one_of": ["of"], "totp": ["secret", "digits", "period", "algorithm"],
        "webauthn_registration": ["options", "origin", "authenticator", "algorithm", "attestation", "user_verified"],
        "webauthn_assertion": ["options", "origin", "authenticator", "user_verified"], "basic_auth": ["username", "password"],
    ]

    /// The matcher names accepted after `match:`.
    public static let names = parameters.map(\.key)

    /// This matcher with every literal string that is a template (`"{{sub}}"`) replaced by
    /// the saved value it names: a sole `{{name}}` takes the value with its JSON type, text
    /// around variables is rendered as a string. Templates naming unsaved variables stay,
    /// and their names are added to `undefined`.
    ///
    /// ```swift
    /// let expected = Matcher.literal(.object(["user_id": .string("{{sub}}")]))
    /// var undefined: [String] = []
    /// expected.resolved(with: ["sub": .string("8c0e…")], undefined: &undefined)   // user_id: "8c0e…"
    /// ```
    public func resolved(with variables: [String: JSONValue], undefined: inout [String]) -> Matcher {
        switch kind {
        case .literal(.string(let text)) where Template.mayHavePlaceholders(text):
            let template = Template(text)
            let missing = template.requiredVariables.filter { variables[$0] == nil }
            guard missing.isEmpty else {
                undefined += missing
                return self
            }
            if let name = template.soleVariable, let value = variables[name] {
                return Matcher(.literal(value), example: example, optional: optional)
            }
            guard let rendered = try? template.render(variables) else { return self }
            return Matcher(.literal(.string(rendered)), example: example, optional: optional)
        case .object(let members):
            return Matcher(
                .object(members.mapValues { $0.resolved(with: variables, undefined: &undefined) }), example: example, optional: optional)
        case .array(let elements):
            return Matcher(
                .array(elements.map { $0.resolved(with: variables, undefined: &undefined) }), example: example, optional: optional)
        case .each(let element, let min, let max):
            return Matcher(
                .each(of: element.resolved(with: variables, undefined: &undefined), min: min, max: max), example: example,
                optional: optional)
        case .oneOf(let alternatives):
            return Matcher(
                .oneOf(alternatives.map { $0.resolved(with: variables, undefined: &undefined) }), example: example, optional: optional)
        case .jwt(let claims):
            return Matcher(
                .jwt(claims: claims.mapValues { $0.resolved(with: variables, undefined: &undefined) }), example: example, optional: optional
            )
        case .basicAuth(let username, let password):
            return Matcher(
                .basicAuth(
                    username: username.resolved(with: variables, undefined: &undefined),
                    password: password.resolved(with: variables, undefined: &undefined)),
                example: example, optional: optional
            )
        case .totp(var spec) where !spec.variables.isEmpty:
            let template = Template(spec.secret)
            let missing = template.requiredVariables.filter { variables[$0] == nil }
            guard missing.isEmpty, let rendered = try? template.render(variables) else {
                undefined += missing
                return self
            }
            spec.secret = rendered
            return Matcher(.totp(spec), example: example, optional: optional)
        case .webauthn(var spec) where !spec.variables.isEmpty:
            guard let saved = spec.savedOptions(with: variables) else {
                undefined += spec.variables.filter { variables[$0] == nil }
                return self
            }
            spec.savedOptions = saved
            return Matcher(.webauthn(spec), example: example, optional: optional)
        default:
            return self
        }
    }

    /// Every way `actual` fails this matcher, as `path: reason` lines; empty when it matches.
    /// - Parameters:
    ///   - actual: the value to check.
    ///   - path: where it is, as mismatches name it (`$` for the whole body).
    ///   - strict: forbid keys the contract does not list, in every object.
    public func mismatches(in actual: JSONValue, at path: String = "$", strict: Bool = false) -> [Mismatch] {
        func fail(_ expected: String) -> [Mismatch] {
            [Mismatch(path: path, expected: expected, actual: Mismatch.describe(actual))]
        }
        switch kind {
        case .literal(let expected):
            return Self.equal(expected, actual) ? [] : fail(expected.description)
        case .object(let members):
            guard case .object(let object) = actual else { return fail("an object") }
            var found: [Mismatch] = []
            for key in members.keys.sorted() {
                let childPath = Self.childPath(path, key)
                guard let value = object[key] else {
                    if members[key]?.optional != true {
                        found.append(
                            Mismatch(path: childPath, expected: members[key]?.summary ?? "a value", actual: "nothing (key missing)"))
                    }
                    continue
                }
                found += members[key]?.mismatches(in: value, at: childPath, strict: strict) ?? []
            }
            if strict {
                for key in object.keys.sorted() where members[key] == nil {
                    found.append(
                        Mismatch(
                            path: Self.childPath(path, key), expected: "no such key (strict)",
                            actual: Mismatch.describe(object[key] ?? .null)))
                }
            }
            return found
        case .array(let elements):
            guard case .array(let array) = actual else { return fail("an array") }
            guard array.count == elements.count else { return fail("an array of \(elements.count) elements") }
            return zip(elements, array).enumerated().flatMap { index, pair in
                pair.0.mismatches(in: pair.1, at: "\(path)[\(index)]", strict: strict)
            }
        case .each(let element, let min, let max):
            guard case .array(let array) = actual else { return fail("an array") }
            if let min, array.count < min { return fail("an array of at least \(min) elements") }
            if let max, array.count > max { return fail("an array of at most \(max) elements") }
            return array.enumerated().flatMap { index, value in
                element.mismatches(in: value, at: "\(path)[\(index)]", strict: strict)
            }
        case .jwks(let min, let max):
            return Self.jwksProblems(actual, at: path, min: min, max: max)
        case .basicAuth(let username, let password):
            return Self.basicAuthMismatches(username: username, password: password, in: actual, at: path)
        case .oneOf(let alternatives):
            var closest: [Mismatch]?
            for alternative in alternatives {
                let found = alternative.mismatches(in: actual, at: path, strict: strict)
                if found.isEmpty { return [] }
                // Of one JSON type with the value: its own mismatches say more than the list.
                if alternative.jsonType == actual.typeName { closest = closest == nil ? found : [] }
            }
            if let closest, !closest.isEmpty { return closest }
            return fail(summary)
        case .jwt(let claims):
            guard case .string(let text) = actual, JWTShape.isJWT(text) else { return fail("a JWT (header.payload.signature)") }
            guard !claims.isEmpty else { return [] }
            let payload = JWTShape.payload(of: text) ?? .object([:])
            return Matcher(.object(claims)).mismatches(in: payload, at: path, strict: false)
        default:
            return Self.scalarProblem(kind, actual).map(fail) ?? []
        }
    }

    /// Every way `actual` is not a JWK Set of `min...max` usable keys.
    private static func jwksProblems(_ actual: JSONValue, at path: String, min: Int?, max: Int?) -> [Mismatch] {
        guard case .object(let set) = actual, case .array(let keys)? = set["keys"] else {
            return [Mismatch(path: path, expected: "a JWK Set ({\"keys\": […]})", actual: Mismatch.describe(actual))]
        }
        let keysPath = childPath(path, "keys")
        if let min, keys.count < min { return [Mismatch(path: keysPath, expected: "at least \(min) keys", actual: "\(keys.count)")] }
        if let max, keys.count > max { return [Mismatch(path: keysPath, expected: "at most \(max) keys", actual: "\(keys.count)")] }
        return keys.enumerated().flatMap { index, key -> [Mismatch] in
            let keyPath = "\(keysPath)[\(index)]"
            guard case .object(let members) = key else {
                return [Mismatch(path: keyPath, expected: "a JWK object", actual: Mismatch.describe(key))]
            }
            var found: [Mismatch] = []
            for name in ["kty", "kid"] {
                guard case .string(let text)? = members[name], !text.isEmpty else {
                    found.append(
                        Mismatch(
                            path: childPath(keyPath, name), expected: "a non-empty string",
                            actual: members[name].map(Mismatch.describe) ?? "nothing (key missing)"))
                    continue
                }
            }
            if members["kty"] == .string("OKP") {
                if members["crv"] != .string("Ed25519") {
                    found.append(
                        Mismatch(
                            path: childPath(keyPath, "crv"), expected: #""Ed25519""#,
                            actual: members["crv"].map(Mismatch.describe) ?? "nothing (key missing)"))
                }
                guard case .string(let x)? = members["x"], Base64URL.decode(x)?.count == 32 else {
                    found.append(
                        Mismatch(
                            path: childPath(keyPath, "x"), expected: "a 32-byte base64url public key",
                            actual: members["x"].map(Mismatch.describe) ?? "nothing (key missing)"))
                    return found
                }
            }
            return found
        }
    }

    /// A short description of what this matcher expects, for reports.
    public var summary: String {
        switch kind {
        case .literal(let value): value.description
        case .object: "an object"
        case .array(let elements): "an array of \(elements.count) elements"
        case .string(let minLength, let maxLength):
            "a string" + Self.bounds(minLength.map(Double.init), maxLength.map(Double.init), unit: " characters")
        case .integer(let min, let max): "an integer" + Self.bounds(min, max, unit: "")
        case .number(let min, let max): "a number" + Self.bounds(min, max, unit: "")
        case .boolean: "a boolean"
        case .null: "null"
        case .any: "any value"
        case .regex(let pattern): "a string matching /\(pattern)/"
        case .uuid: "a UUID string"
        case .datetime: "an RFC 3339 date-time string"
        case .jwt(let claims): claims.isEmpty ? "a JWT" : "a JWT with claims \(claims.keys.sorted().joined(separator: ", "))"
        case .jwks: "a JWK Set"
        case .each(let element, _, _): "an array of \(element.summary)"
        case .oneOf(let alternatives): "one of: " + alternatives.map(\.summary).joined(separator: " | ")
        case .totp(let spec): spec.summary
        case .webauthn(let spec): spec.summary
        case .basicAuth(let username, _): "HTTP Basic credentials of username \(username.summary)"
        }
    }

    /// Why `actual` fails a scalar matcher, or nil when it matches.
    private static func scalarProblem(_ kind: Kind, _ actual: JSONValue) -> String? {
        switch kind {
        case .string(let minLength, let maxLength):
            guard case .string(let text) = actual else { return "a string" }
            if let minLength, text.count < minLength { return "a string of at least \(minLength) characters" }
            if let maxLength, text.count > maxLength { return "a string of at most \(maxLength) characters" }
            return nil
        case .integer(let min, let max):
            guard case .integer(let value) = actual else { return "an integer" }
            return inBounds(Double(value), min, max) ? nil : "an integer" + bounds(min, max, unit: "")
        case .number(let min, let max):
            guard let value = actual.doubleValue else { return "a number" }
            return inBounds(value, min, max) ? nil : "a number" + bounds(min, max, unit: "")
        case .boolean:
            if case .bool = actual { return nil }
            return "a boolean"
        case .null:
            return actual == .null ? nil : "null"
        case .any:
            return nil
        case .regex(let pattern):
            guard case .string(let text) = actual else { return "a string matching /\(pattern)/" }
            guard let regex = try? Regex(pattern), (try? regex.wholeMatch(in: text)) != nil else {
                return "a string matching /\(pattern)/"
            }
            return nil
        case .uuid:
            guard case .string(let text) = actual, UUID(uuidString: text) != nil else { return "a UUID string" }
            return nil
        case .datetime:
            guard case .string(let text) = actual, DateTimeFormat.parse(text) != nil else { return "an RFC 3339 date-time string" }
            return nil
        case .totp(let spec):
            // The shape; and, for a key written out, a code of it within one step of now.
            if let problem = spec.shapeProblem(actual) { return problem }
            guard case .string(let code) = actual, spec.variables.isEmpty, let totp = try? spec.totp() else { return nil }
            return totp.step(of: code, near: Date()) == nil ? spec.summary + " valid now" : nil
        case .webauthn(let spec):
            // The shape: whether it verifies takes a relying party (the stub is one).
            return spec.shapeProblem(actual)
        case .literal, .object, .array, .each, .jwks, .jwt, .oneOf, .basicAuth:
            return nil
        }
    }

    /// The JSON type every value this matcher takes has (`string`, `object`, …), nil when
    /// it takes several (`any`, `one_of`).
    var jsonType: String? {
        switch kind {
        case .literal(let value): value.typeName
        case .object, .jwks: JSONValue.object([:]).typeName
        case .array, .each: JSONValue.array([]).typeName
        case .string, .regex, .uuid, .datetime, .jwt, .totp, .basicAuth: JSONValue.string("").typeName
        case .integer: JSONValue.integer(0).typeName
        case .number: JSONValue.number(0.5).typeName
        case .boolean: JSONValue.bool(true).typeName
        case .null: JSONValue.null.typeName
        case .webauthn: JSONValue.object([:]).typeName
        case .any, .oneOf: nil
        }
    }

    private static func inBounds(_ value: Double, _ min: Double?, _ max: Double?) -> Bool {
        (min.map { value >= $0 } ?? true) && (max.map { value <= $0 } ?? true)
    }

    private static func bounds(_ min: Double?, _ max: Double?, unit: String) -> String {
        func text(_ value: Double) -> String {
            value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
        }
        switch (min, max) {
        case (let min?, let max?): return " from \(text(min)) to \(text(max))\(unit)"
        case (let min?, nil): return " of at least \(text(min))\(unit)"
        case (nil, let max?): return " of at most \(text(max))\(unit)"
        case (nil, nil): return ""
        }
    }

    /// Literal equality where `900` equals `900.0`.
    ///
    /// ```swift
    /// Matcher.equal(.integer(900), .number(900))   // true
    /// ```
    public static func equal(_ expected: JSONValue, _ actual: JSONValue) -> Bool {
        switch (expected, actual) {
        case (.integer(let a), .number(let b)), (.number(let b), .integer(let a)): Double(a) == b
        default: expected == actual
        }
    }

    /// `$.a`, or `$["odd key"]` for keys that are not identifiers.
    package static func childPath(_ path: String, _ key: String) -> String {
        isSimpleKey(key) ? path + "." + key : "\(path)[\(JSONValue.string(key).description)]"
    }

    /// A key a path shows after a dot: letters, digits and `_`, not starting with a digit.
    /// ASCII keys are looked at byte by byte (every generated response builds these paths).
    private static func isSimpleKey(_ key: String) -> Bool {
        guard let first = key.utf8.first else { return false }
        guard key.utf8.allSatisfy({ $0 < 0x80 }) else {
            return key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } && !(key.first?.isNumber ?? true)
        }
        let isDigit = { (byte: UInt8) in byte >= 0x30 && byte <= 0x39 }
        let isLetter = { (byte: UInt8) in (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
        return !isDigit(first) && key.utf8.allSatisfy { isDigit($0) || isLetter($0) || $0 == UInt8(ascii: "_") }
    }
}

/// One way a value failed a matcher.
///
/// ```swift
/// print(mismatch)   // "$.expires_in: expected an integer of at least 1, got string \"x\""
/// ```
public struct Mismatch: Sendable, Hashable, CustomStringConvertible {
    /// Where, as a JSON path (`$.a.b[0]`), or `status` / `header X`.
    public let path: String
    /// What the contract expects.
    public let expected: String
    /// What was there.
    public let actual: String

    /// Creates a mismatch.
    public init(path: String, expected: String, actual: String) {
        self.path = path
        self.expected = expected
        self.actual = actual
    }

    /// `path: expected …, got …`.
    public var description: String { "\(path): expected \(expected), got \(actual)" }

    /// `type value`, values cut at 80 characters.
    static func describe(_ value: JSONValue) -> String {
        let text = value.description
        let shown = text.count > 80 ? String(text.prefix(77)) + "…" : text
        switch value {
        case .null: return "null"
        case .object, .array: return "\(value.typeName) \(shown)"
        default: return "\(value.typeName) \(shown)"
        }
    }
}
