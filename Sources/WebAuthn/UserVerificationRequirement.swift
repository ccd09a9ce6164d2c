/// Whether the relying party needs the user verified (PIN, biometrics) and not only present
/// (WebAuthn §5.8.6). Only `.required` makes a missing UV flag a refusal; the others let
/// the authenticator decide and report what it did.
///
/// ```swift
/// var relyingParty = WebAuthnRelyingParty(id: "example.org", name: "Example", origins: ["https://example.org"])
/// relyingParty.userVerification = .required
/// ```
public enum UserVerificationRequirement: String, Codable, Sendable, CaseIterable {
    /// The UV flag must be set.
    case required
    /// Verify the user if the authenticator can.
    case preferred
    /// Do not verify the user if avoidable.
    case discouraged
}
