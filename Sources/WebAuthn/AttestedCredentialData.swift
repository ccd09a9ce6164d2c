import Foundation

/// The credential a registration creates, as the authenticator data carries it (WebAuthn
/// §6.5.1): the authenticator model's AAGUID, the credential ID and the COSE public key.
///
/// ```swift
/// let attested = try #require(attestationObject.authenticatorData.attestedCredentialData)
/// attested.credentialID.count   // 32
/// ```
public struct AttestedCredentialData: Sendable, Equatable {
    /// The longest credential ID WebAuthn allows (§5.8.3 and §7.1).
    public static let maximumCredentialIDLength = 1023

    /// The authenticator model (all zeros when the client hid it, as with `attestation: "none"`).
    public let aaguid: UUID
    /// The credential ID (1…1023 bytes).
    public let credentialID: Data
    /// The credential public key: the COSE_Key's exact bytes (parse with ``COSEKey``).
    public let credentialPublicKey: Data

    /// Creates the value.
    ///
    /// ```swift
    /// AttestedCredentialData(aaguid: UUID(), credentialID: Data([1]), credentialPublicKey: coseKey.bytes)
    /// ```
    public init(aaguid: UUID, credentialID: Data, credentialPublicKey: Data) {
        self.aaguid = aaguid
        self.credentialID = credentialID
        self.credentialPublicKey = credentialPublicKey
    }
}
