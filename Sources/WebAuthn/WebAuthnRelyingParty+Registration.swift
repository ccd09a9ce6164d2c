import Crypto
import Foundation
import JOSE

extension WebAuthnRelyingParty {
    /// Verifies a registration (WebAuthn §7.1): the client data (type `webauthn.create`,
    /// the challenge in constant time, the origin, cross-origin use), the authenticator data
    /// (RP ID hash, UP, UV when required, BS only with BE, a credential ID of at most 1023
    /// bytes equal to `rawId`), the credential key (ES256, EdDSA or RS256, among
    /// ``algorithms``) and the attestation statement under ``attestationPolicy``.
    ///
    /// ```swift
    /// let credential = try relyingParty.verifyRegistration(response, expectedChallenge: issued.challenge)
    /// credential.algorithm   // .es256
    /// ```
    /// The caller must issue and keep `expectedChallenge` (once, briefly), and refuse a
    /// credential ID that is already registered.
    /// - Throws: ``WebAuthnError``: malformed when the response does not parse, rejected
    ///   naming the failed check.
    public func verifyRegistration(_ response: RegistrationResponseJSON, expectedChallenge: Data) throws(WebAuthnError)
        -> VerifiedCredential
    {
        guard response.type == "public-key" else { throw .malformed("type", "is not public-key") }
        guard !response.rawId.isEmpty else { throw .malformed("rawId", "is empty") }
        guard Base64URL.decode(response.id) == response.rawId else {
            throw .rejected(.credentialID, "id is not the base64url of rawId")
        }
        try verifyClientData(response.response.clientDataJSON, type: "webauthn.create", expectedChallenge: expectedChallenge)
        let object = try AttestationObject(bytes: response.response.attestationObject)
        let data = object.authenticatorData
        try verifyFlags(data)
        guard let attested = data.attestedCredentialData else {
            throw .malformed("attestationObject", "its authenticator data carries no credential (AT is not set)")
        }
        guard attested.credentialID == response.rawId else {
            throw .rejected(.credentialID, "the credential ID in the authenticator data is not rawId")
        }
        let key = try COSEKey(bytes: attested.credentialPublicKey)
        guard algorithms.contains(key.algorithm) else {
            throw .rejected(.algorithm, "credential algorithm \(key.algorithm) is not accepted by the relying party")
        }
        let clientDataHash = Data(SHA256.hash(data: response.response.clientDataJSON))
        let attestationType = try object.verifyStatement(credentialKey: key, clientDataHash: clientDataHash, policy: attestationPolicy)
        return VerifiedCredential(
            id: attested.credentialID,
            publicKey: attested.credentialPublicKey,
            algorithm: key.algorithm,
            signCount: data.signCount,
            transports: VerifiedCredential.sanitizedTransports(response.response.transports),
            aaguid: attested.aaguid,
            isBackupEligible: data.flags.contains(.backupEligible),
            isBackedUp: data.flags.contains(.backupState),
            isUserVerified: data.flags.contains(.userVerified),
            isDiscoverable: response.clientExtensionResults.credProps?.rk,
            attestationFormat: object.format,
            attestationType: attestationType
        )
    }
}
