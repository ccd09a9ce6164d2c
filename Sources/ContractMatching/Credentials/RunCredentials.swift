/// Where the TOTP codes a run sends come from (`contract verify`'s `TOTPCodeGenerator`, which
/// never sends a time step twice). Without one, a `totp` matcher's sample is the key's code now.
public protocol TOTPCodeSource: Sendable {
    /// The code to send now for `totp`.
    func code(for totp: TOTP) throws -> String
}

/// Where the WebAuthn credentials a run sends come from (`contract verify`'s
/// `WebAuthnAuthenticators`, which keep each authenticator's key across the run).
public protocol WebAuthnCredentialSource: Sendable {
    /// The credential `spec`'s authenticator makes for `options` (the saved options' JSON), sent
    /// at `path` of a request.
    /// - Throws: a ``MatcherSampleError``, or an error of the source's, naming `path`.
    func credential(for spec: WebAuthnSpec, options: JSONValue, at path: String) throws -> JSONValue
}
