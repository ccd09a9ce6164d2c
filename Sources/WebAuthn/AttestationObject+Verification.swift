import Crypto
import Foundation

extension AttestationObject {
    /// The registered formats whose statements authd does not verify.
    static let unverifiableFormats: Set<String> = ["fido-u2f", "tpm", "android-key", "android-safetynet", "apple", "compound"]

    /// Checks the attestation statement (WebAuthn §7.1 steps 21–22, §8.2, §8.7) against the
    /// credential's key and `clientDataHash`, under `policy`.
    ///
    /// ```swift
    /// let type = try object.verifyStatement(credentialKey: key, clientDataHash: hash, policy: .verifiedOnly)   // .none
    /// ```
    /// - Throws: rejected with ``WebAuthnError/Check/attestation``.
    func verifyStatement(credentialKey: COSEKey, clientDataHash: Data, policy: AttestationPolicy) throws(WebAuthnError) -> AttestationType {
        switch format {
        case "none":
            guard statement.mapValue?.isEmpty == true else {
                throw .rejected(.attestation, "a none attestation statement must be empty")
            }
            return .none
        case "packed":
            if statement["x5c"] != nil || statement["ecdaaKeyId"] != nil {
                return try unverified("packed attestation with a certificate chain", policy: policy)
            }
            guard let alg = statement["alg"]?.intValue, let signature = statement["sig"]?.bytesValue else {
                throw .rejected(.attestation, "a packed attestation statement needs an integer alg and a byte string sig")
            }
            guard alg == credentialKey.algorithm.rawValue else {
                throw .rejected(.attestation, "the packed self-attestation alg is not the credential's")
            }
            guard credentialKey.isValidSignature(signature, for: authenticatorData.bytes + clientDataHash) else {
                throw .rejected(.attestation, "the packed self-attestation signature does not verify")
            }
            return .selfAttestation
        case let format where Self.unverifiableFormats.contains(format):
            return try unverified("\(format) attestation", policy: policy)
        default:
            throw .rejected(.attestation, "the attestation statement format is not a registered one")
        }
    }

    private func unverified(_ what: String, policy: AttestationPolicy) throws(WebAuthnError) -> AttestationType {
        guard policy == .acceptUnverified else {
            throw .rejected(
                .attestation,
                "\(what) is not verified by this relying party (its attestation policy accepts none and packed self-attestation only)"
            )
        }
        return .unverified
    }
}
