/// What making a sample may draw on: a minter for signed tokens, and a run's TOTP codes and
/// software authenticators (each optional; see ``Matcher/sampleValue(at:minter:codes:authenticators:)``).
public struct SampleContext: Sendable {
    /// Makes `jwt`s and the `jwks` that verifies them (the stub's signer).
    public var minter: (any TokenMinter)?
    /// The run's TOTP codes.
    public var codes: (any TOTPCodeSource)?
    /// The run's software authenticators.
    public var authenticators: (any WebAuthnCredentialSource)?

    /// A context of these parts.
    public init(minter: (any TokenMinter)? = nil, codes: (any TOTPCodeSource)? = nil, authenticators: (any WebAuthnCredentialSource)? = nil)
    {
        self.minter = minter
        self.codes = codes
        self.authenticators = authenticators
    }

    /// A sample of `matcher`, a matcher inside another, at `path`.
    public func sample(_ matcher: Matcher, at path: String) throws -> JSONValue {
        try matcher.sampleValue(at: path, minter: minter, codes: codes, authenticators: authenticators)
    }
}
