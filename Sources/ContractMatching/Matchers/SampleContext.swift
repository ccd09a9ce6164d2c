/// What making a sample may draw on: a minter for signed tokens, and a run's TOTP codes,
/// software authenticators and identity provider (each optional; see ``Matcher/sampleValue(at:minter:codes:authenticators:identityProvider:)``).
public struct SampleContext: Sendable {
    /// Makes `jwt`s and the `jwks` that verifies them (the stub's signer).
    public var minter: (any TokenMinter)?
    /// The run's TOTP codes.
    public var codes: (any TOTPCodeSource)?
    /// The run's software authenticators.
    public var authenticators: (any WebAuthnCredentialSource)?
    /// The run's identity provider (`contract verify`'s): signs the `jwt`s a request marks
    /// `signed`, with the keys its receiver publishes as an OpenID provider's.
    public var identityProvider: (any TokenMinter)?

    /// A context of these parts.
    public init(
        minter: (any TokenMinter)? = nil, codes: (any TOTPCodeSource)? = nil, authenticators: (any WebAuthnCredentialSource)? = nil,
        identityProvider: (any TokenMinter)? = nil
    ) {
        self.minter = minter
        self.codes = codes
        self.authenticators = authenticators
        self.identityProvider = identityProvider
    }

    /// A sample of `matcher` at `path` (``Matcher/sampleValue(at:minter:codes:authenticators:identityProvider:)``):
    /// literals as written, objects and arrays member by member, typed matchers as their kind
    /// makes one.
    public func sample(_ matcher: Matcher, at path: String) throws -> JSONValue {
        switch matcher.kind {
        case .literal(let value):
            return value
        case .object(let members):
            var object: [String: JSONValue] = [:]
            for (key, member) in members {
                object[key] = try sample(member, at: Matcher.childPath(path, key))
            }
            return .object(object)
        case .array(let elements):
            return .array(try elements.enumerated().map { try sample($1, at: "\(path)[\($0)]") })
        case .typed(let kind):
            return try kind.sample(at: path, example: matcher.sampleExample, with: self)
        }
    }
}
