import Crypto
import Foundation
import JOSE

extension WebAuthnRelyingParty {
    /// Verifies an authentication (WebAuthn §7.2) against the stored `credential` (the
    /// caller looks it up by `response.rawId`, and checks it belongs to the account being
    /// signed in): the credential ID, the user handle when both carry one, the client data
    /// (type `webauthn.get`, the challenge in constant time, the origin, cross-origin use),
    /// the authenticator data (RP ID hash, UP, UV when required, BS only with BE, BE as at
    /// registration) and the signature over `authenticatorData ‖ SHA-256(clientDataJSON)`.
    ///
    /// ```swift
    /// let assertion = try relyingParty.verifyAuthentication(response, expectedChallenge: issued.challenge, credential: record)
    /// if assertion.signCountRegressed { … }   // reported, not thrown: the caller decides
    /// ```
    /// - Throws: ``WebAuthnError``: malformed when the response does not parse, rejected
    ///   naming the failed check.
    public func verifyAuthentication(
        _ response: AuthenticationResponseJSON, expectedChallenge: Data, credential: WebAuthnCredentialRecord
    ) throws(WebAuthnError) -> VerifiedAssertion {
        guard response.type == "public-key" else { throw .malformed("type", "is not public-key") }
        guard !response.rawId.isEmpty else { throw .malformed("rawId", "is empty") }
        guard response.rawId == credential.id else { throw .rejected(.credentialID, "rawId is not the stored credential's ID") }
        guard Base64URL.decode(response.id) == response.rawId else {
            throw .rejected(.credentialID, "id is not the base64url of rawId")
        }
        let userHandle = response.response.userHandle
        if let userHandle, let expected = credential.userHandle, !ConstantTime.equal(userHandle, expected) {
            throw .rejected(.userHandle, "the user handle is not the one of the credential's account")
        }
        try verifyClientData(response.response.clientDataJSON, type: "webauthn.get", expectedChallenge: expectedChallenge)
        let data = try AuthenticatorData(bytes: response.response.authenticatorData)
        try verifyFlags(data)
        guard data.flags.contains(.backupEligible) == credential.isBackupEligible else {
            throw .rejected(.backupState, "the backup-eligible flag (BE) is not what it was at registration")
        }
        let key: COSEKey
        do {
            key = try COSEKey(bytes: credential.publicKey)
        } catch {
            throw .rejected(.algorithm, "the stored credential public key is not a usable COSE key")
        }
        let clientDataHash = Data(SHA256.hash(data: response.response.clientDataJSON))
        guard key.isValidSignature(response.response.signature, for: data.bytes + clientDataHash) else {
            throw .rejected(.signature, "the signature does not verify with the credential's public key")
        }
        let regressed = (data.signCount != 0 || credential.signCount != 0) && data.signCount <= credential.signCount
        return VerifiedAssertion(
            credentialID: response.rawId,
            signCount: data.signCount,
            signCountRegressed: regressed,
            isUserVerified: data.flags.contains(.userVerified),
            isBackedUp: data.flags.contains(.backupState),
            userHandle: userHandle
        )
    }
}
