import Foundation

/// Why a WebAuthn response was not accepted: either *malformed* (it cannot be parsed: the
/// server answers 400 `invalid_request`) or *rejected* (it parsed but failed a check of
/// WebAuthn §7.1 or §7.2 — challenge, origin, RP ID, flags, signature: the server answers
/// 401). The ``description`` names the field or the check and never contains key material,
/// signatures, challenges or any text copied from the response.
///
/// ```swift
/// do {
///     let credential = try relyingParty.verifyRegistration(response, expectedChallenge: challenge)
/// } catch let error as WebAuthnError where error.isMalformed {
///     throw AuthError.invalidRequest(error.description)     // 400
/// } catch let error as WebAuthnError {
///     audit(error.check)                                    // e.g. .origin
///     throw AuthError.invalidCredentials                    // 401
/// }
/// ```
public struct WebAuthnError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The check of the WebAuthn ceremony that a rejected response failed (the pattern of
    /// ``AuthError/Code``: compare these, not descriptions).
    ///
    /// ```swift
    /// WebAuthnError.rejected(.origin, "origin is not allowed").check == .origin   // true
    /// WebAuthnError.Check.rpID.rawValue                                            // "rp_id"
    /// ```
    public struct Check: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case type
            case challenge
            case origin
            case topOrigin = "top_origin"
            case rpID = "rp_id"
            case userPresent = "user_present"
            case userVerified = "user_verified"
            case backupState = "backup_state"
            case algorithm
            case credentialID = "credential_id"
            case userHandle = "user_handle"
            case signature
            case attestation
            case signCount = "sign_count"
        }

        private let base: Base

        /// `clientDataJSON.type` is not the ceremony's (`webauthn.create` or `webauthn.get`).
        public static let type = Check(base: .type)
        /// `clientDataJSON.challenge` is not the challenge the server issued.
        public static let challenge = Check(base: .challenge)
        /// `clientDataJSON.origin` is not one of the relying party's origins.
        public static let origin = Check(base: .origin)
        /// A cross-origin call (an iframe) that the relying party does not expect.
        public static let topOrigin = Check(base: .topOrigin)
        /// The authenticator data's `rpIdHash` is not SHA-256 of the RP ID.
        public static let rpID = Check(base: .rpID)
        /// The user-present (UP) flag is not set.
        public static let userPresent = Check(base: .userPresent)
        /// The user-verified (UV) flag is not set though the relying party requires it.
        public static let userVerified = Check(base: .userVerified)
        /// The backup flags are inconsistent (BS without BE, or BE changed since registration).
        public static let backupState = Check(base: .backupState)
        /// The credential's algorithm or key is not one the relying party accepts.
        public static let algorithm = Check(base: .algorithm)
        /// The credential ID is too long, or differs between the places that carry it.
        public static let credentialID = Check(base: .credentialID)
        /// The user handle does not belong to the credential's account.
        public static let userHandle = Check(base: .userHandle)
        /// The assertion's signature does not verify with the credential's public key.
        public static let signature = Check(base: .signature)
        /// The attestation statement does not verify, or is of a kind the policy refuses.
        public static let attestation = Check(base: .attestation)
        /// The signature counter went backwards (thrown only by callers that refuse it: the
        /// verifier itself reports it in ``VerifiedAssertion/signCountRegressed``).
        public static let signCount = Check(base: .signCount)

        /// The snake_case name, for audit records.
        public var rawValue: String { base.rawValue }
        /// The snake_case name.
        public var description: String { base.rawValue }
    }

    private enum Kind: Sendable, Equatable {
        case malformed(field: String, reason: String)
        case rejected(check: Check, reason: String)
    }

    private let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// A response that cannot be parsed; `field` names where (`attestationObject`,
    /// `clientDataJSON.challenge`, …) and `reason` what is wrong. Neither may quote the input.
    ///
    /// ```swift
    /// WebAuthnError.malformed("authenticatorData", "is shorter than 37 bytes").description
    /// // "malformed authenticatorData: is shorter than 37 bytes"
    /// ```
    public static func malformed(_ field: String, _ reason: String) -> WebAuthnError {
        WebAuthnError(.malformed(field: field, reason: reason))
    }

    /// A parsed response that failed `check`; `reason` says how, without quoting the input.
    ///
    /// ```swift
    /// WebAuthnError.rejected(.challenge, "the challenge is not the one issued").check   // .challenge
    /// ```
    public static func rejected(_ check: Check, _ reason: String) -> WebAuthnError {
        WebAuthnError(.rejected(check: check, reason: reason))
    }

    /// Whether the response could not be parsed (400), rather than failed a check (401).
    ///
    /// ```swift
    /// WebAuthnError.malformed("rawId", "is empty").isMalformed   // true
    /// ```
    public var isMalformed: Bool {
        if case .malformed = kind { true } else { false }
    }

    /// The failed check of a rejected response; nil for a malformed one.
    ///
    /// ```swift
    /// WebAuthnError.rejected(.userPresent, "UP is not set").check   // .userPresent
    /// ```
    public var check: Check? {
        if case .rejected(let check, _) = kind { check } else { nil }
    }

    /// One line: "malformed FIELD: REASON" or "rejected (CHECK): REASON".
    ///
    /// ```swift
    /// "\(WebAuthnError.rejected(.origin, "the origin is not allowed"))"
    /// // "rejected (origin): the origin is not allowed"
    /// ```
    public var description: String {
        switch kind {
        case .malformed(let field, let reason): "malformed \(field): \(reason)"
        case .rejected(let check, let reason): "rejected (\(check)): \(reason)"
        }
    }
}
