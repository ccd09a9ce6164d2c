import Foundation

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

    /// An error at `path`, for `reason`.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// `path: reason`.
    public var description: String { "\(path): \(reason)" }
}

extension Matcher {
    /// A value that satisfies this matcher: literals as written, typed matchers their
    /// `example`, else a generated value (`uuid` a fresh UUID, `datetime` now, `string` 24
    /// random characters or `min_length`, numbers their `min`). `jwt` and `jwks` come from
    /// `minter`, or from their `example` without one. A `totp` code comes from `codes` (a
    /// run's ``TOTPCodeSource``), or is the key's code now without one; while its secret is
    /// an unsaved `{{name}}`, it is ``TOTPSpec/placeholderCode``. A `webauthn_…` credential
    /// comes from `authenticators` (a run's ``WebAuthnCredentialSource``) for the saved options; while the options
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
        at path: String = "$", minter: (any TokenMinter)? = nil, codes: (any TOTPCodeSource)? = nil,
        authenticators: (any WebAuthnCredentialSource)? = nil, identityProvider: (any TokenMinter)? = nil
    ) throws -> JSONValue {
        try SampleContext(minter: minter, codes: codes, authenticators: authenticators, identityProvider: identityProvider)
            .sample(self, at: path)
    }

    /// The text to send for this matcher in a path segment, query parameter or header:
    /// placeholders filled from `variables`, then `sampleValue(at:minter:)`; strings as
    /// they are, other values as JSON.
    /// - Throws: ``Template/UndefinedVariable``, ``MatcherSampleError``.
    public func sampleText(with variables: [String: JSONValue], at path: String, codes: (any TOTPCodeSource)? = nil) throws -> String {
        try sampleValue(with: variables, at: path, codes: codes).text
    }

    /// ``sampleValue(at:minter:codes:authenticators:identityProvider:)`` of this matcher with its placeholders
    /// filled from `variables`.
    /// - Throws: ``Template/UndefinedVariable``, ``MatcherSampleError``, what `codes` and
    ///   `authenticators` throw.
    public func sampleValue(
        with variables: [String: JSONValue], at path: String = "$", codes: (any TOTPCodeSource)? = nil,
        authenticators: (any WebAuthnCredentialSource)? = nil, identityProvider: (any TokenMinter)? = nil
    ) throws -> JSONValue {
        var undefined: [String] = []
        let resolved = resolved(with: variables, undefined: &undefined)
        if let name = undefined.first { throw Template.UndefinedVariable(name: name) }
        return try resolved.sampleValue(at: path, codes: codes, authenticators: authenticators, identityProvider: identityProvider)
    }
}
