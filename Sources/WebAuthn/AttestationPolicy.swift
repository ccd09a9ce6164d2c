/// Which attestation statements a registration may carry. authd asks for `attestation:
/// "none"` and trusts no authenticator vendor, so it never needs attestation to verify; the
/// question is only whether a statement it cannot verify is refused or passed over.
///
/// - `none` is always accepted (nothing to verify).
/// - `packed` self-attestation (no `x5c`) is always verified: its `alg` must be the
///   credential's and its `sig` must verify with the credential key; a failure is refused.
/// - `packed` with `x5c`, `fido-u2f`, `tpm`, `android-key`, `android-safetynet`, `apple` and
///   `compound` are refused under ``verifiedOnly`` and accepted as
///   ``AttestationType/unverified`` under ``acceptUnverified``.
/// - Any other `fmt` is refused (WebAuthn §7.1 step 21).
///
/// ```swift
/// var relyingParty = WebAuthnRelyingParty(id: "example.org", name: "Example", origins: ["https://example.org"])
/// relyingParty.attestationPolicy = .acceptUnverified   // a security key's full attestation no longer fails sign-up
/// ```
public enum AttestationPolicy: Sendable, Equatable {
    /// Accept `none` and `packed` self-attestation only (the default).
    case verifiedOnly
    /// Also accept the other registered formats, unverified.
    case acceptUnverified
}

/// What a registration's attestation established (WebAuthn §6.5.3, as far as authd goes).
///
/// ```swift
/// credential.attestationType   // .selfAttestation for fmt packed without x5c
/// ```
public enum AttestationType: String, Sendable, Codable, CaseIterable {
    /// `fmt: none`: no attestation.
    case none
    /// `packed` self-attestation, verified with the credential's own key.
    case selfAttestation = "self"
    /// A registered format with a certificate chain, accepted without verifying it
    /// (``AttestationPolicy/acceptUnverified``).
    case unverified
}
