import Foundation
import JOSE
import WebForms

/// Makes what a matcher alone cannot: a real signed JWT and the JWK Set that verifies it.
/// The stub's signer is one; without a minter, `jwt` and `jwks` matchers need an `example`.
public protocol TokenMinter: Sendable {
    /// A signed JWT whose claims satisfy `claims`.
    func jwt(claims: [String: Matcher], at path: String) throws -> JSONValue
    /// The JWK Set of the key that signs the JWTs.
    var jwks: JSONValue { get }
}

/// A matcher no value can be made for (a `regex` without `example`).
public struct MatcherSampleError: Error, Sendable, CustomStringConvertible {
    /// Where in the message (`$.a`, `header X`, `path parameter id`).
    public let path: String
    /// Why.
    public let reason: String

    /// `path: reason`.
    public var description: String { "\(path): \(reason)" }
}

extension Matcher {
    /// A value that satisfies this matcher: literals as written, typed matchers their
    /// `example`, else a generated value (`uuid` a fresh UUID, `datetime` now, `string` 24
    /// random characters or `min_length`, numbers their `min`). `jwt` and `jwks` come from
    /// `minter`, or from their `example` without one. A `totp` code comes from `codes` (a
    /// run's ``TOTPCodeGenerator``), or is the key's code now without one; while its secret is
    /// an unsaved `{{name}}`, it is ``TOTPSpec/placeholderCode``. A `webauthn_…` credential
    /// comes from `authenticators` (a run's ``WebAuthnAuthenticators``) for the saved options;
    /// without them a registration is made by a throwaway authenticator; while the options
    /// are not saved it is ``WebAuthnSpec/exampleCredential``. A `one_of` is its `example`, else
    /// its first alternative's value; an optional key is there. `basic_auth` is the
    /// `Basic …` value of its username's and password's values.
    ///
    /// ```swift
    /// try Matcher(.integer(min: 5, max: nil)).sampleValue()   // .integer(5)
    /// try Matcher(.uuid).sampleValue()                       // .string("0b6c5a3e-…")
    /// ```
    /// - Throws: ``MatcherSampleError`` for a `regex` without `example`, a `jwt` or `jwks`
    ///   without `example` and without a minter, a `totp` whose secret is not a key, or a
    ///   WebAuthn assertion without `authenticators`; what `codes` and `authenticators` throw.
    public func sampleValue(
        at path: String = "$", minter: (any TokenMinter)? = nil, codes: TOTPCodeGenerator? = nil,
        authenticators: WebAuthnAuthenticators? = nil
    ) throws -> JSONValue {
        switch kind {
        case .literal(let value):
            return value
        case .object(let members):
            var object: [String: JSONValue] = [:]
            for (key, member) in members {
                object[key] = try member.sampleValue(
                    at: Self.childPath(path, key), minter: minter, codes: codes, authenticators: authenticators)
            }
            return .object(object)
        case .array(let elements):
            return .array(
                try elements.enumerated().map {
                    try $1.sampleValue(at: "\(path)[\($0)]", minter: minter, codes: codes, authenticators: authenticators)
                })
        case .jwt(let claims):
            if let minter { return try minter.jwt(claims: claims, at: path) }
            if let example { return example }
            throw MatcherSampleError(path: path, reason: "a jwt matcher needs an example")
        case .jwks:
            if let minter { return minter.jwks }
            if let example { return example }
            throw MatcherSampleError(path: path, reason: "a jwks matcher needs an example")
        case .each(let element, let min, _):
            if let example { return example }
            return .array(
                try (0..<Swift.max(min ?? 1, 1)).map {
                    try element.sampleValue(at: "\(path)[\($0)]", minter: minter, codes: codes, authenticators: authenticators)
                })
        case .oneOf(let alternatives):
            if let example { return example }
            guard let first = alternatives.first else {
                throw MatcherSampleError(path: path, reason: "a one_of matcher needs alternatives")
            }
            return try first.sampleValue(at: path, minter: minter, codes: codes, authenticators: authenticators)
        case .totp(let spec):
            return .string(try spec.code(at: path, codes: codes))
        case .webauthn(let spec):
            return try spec.credential(at: path, authenticators: authenticators)
        case .basicAuth(let username, let password):
            func text(_ matcher: Matcher, _ part: String) throws -> String {
                let value = try matcher.sampleValue(at: "\(path) \(part)", minter: minter, codes: codes, authenticators: authenticators)
                if case .string(let text) = value { return text }
                return value.description
            }
            return .string(BasicCredentials.header(username: try text(username, "username"), password: try text(password, "password")))
        default:
            if let example { return example }
            return try generated(at: path)
        }
    }

    /// The text to send for this matcher in a path segment, query parameter or header:
    /// placeholders filled from `variables`, then `sampleValue(at:minter:)`; strings as
    /// they are, other values as JSON.
    /// - Throws: ``Template/UndefinedVariable``, ``MatcherSampleError``.
    public func sampleText(with variables: [String: JSONValue], at path: String, codes: TOTPCodeGenerator? = nil) throws -> String {
        let value = try sampleValue(with: variables, at: path, codes: codes)
        if case .string(let text) = value { return text }
        return value.description
    }

    /// ``sampleValue(at:minter:codes:authenticators:)`` of this matcher with its placeholders
    /// filled from `variables`.
    /// - Throws: ``Template/UndefinedVariable``, ``MatcherSampleError``, what `codes` and
    ///   `authenticators` throw.
    public func sampleValue(
        with variables: [String: JSONValue], at path: String = "$", codes: TOTPCodeGenerator? = nil,
        authenticators: WebAuthnAuthenticators? = nil
    ) throws -> JSONValue {
        var undefined: [String] = []
        let resolved = resolved(with: variables, undefined: &undefined)
        if let name = undefined.first { throw Template.UndefinedVariable(name: name) }
        return try resolved.sampleValue(at: path, codes: codes, authenticators: authenticators)
    }

    private func generated(at path: String) throws -> JSONValue {
        switch kind {
        case .string(let minLength, let maxLength):
            let length = Swift.min(Swift.max(minLength ?? 0, 24), maxLength ?? Int.max)
            return .string(SecureRandom.base64URLText(length: length))
        case .integer(let min, let max):
            return .integer(Int(min ?? Swift.min(1, max ?? 1)))
        case .number(let min, let max):
            return .number(min ?? Swift.min(1, max ?? 1))
        case .boolean: return .bool(true)
        case .null: return .null
        case .any: return .string("any")
        case .uuid: return .string(UUID().uuidString.lowercased())
        case .datetime: return .string(DateTimeFormat.string(from: Date()))
        case .regex(let pattern):
            throw MatcherSampleError(path: path, reason: "a regex matcher (/\(pattern)/) needs an example")
        case .literal, .object, .array, .each, .jwt, .jwks, .totp, .webauthn, .oneOf, .basicAuth:
            return .null
        }
    }
}
