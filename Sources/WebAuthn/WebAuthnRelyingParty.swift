import Crypto
import Foundation
import JOSE

/// authd as a WebAuthn relying party: its RP ID, the exact origins its pages are served
/// from, and its policy. It builds the options of both ceremonies and verifies their
/// responses (WebAuthn §7.1, §7.2); storing challenges and credentials is the caller's.
///
/// ```swift
/// var relyingParty = WebAuthnRelyingParty(id: "example.org", name: "Example", origins: ["https://example.org"])
/// relyingParty.userVerification = .required
/// let credential = try relyingParty.verifyRegistration(response, expectedChallenge: challenge)
/// ```
public struct WebAuthnRelyingParty: Sendable, Equatable {
    /// The RP ID: a domain, the origins' host or a registrable suffix of it (`example.org`).
    public var id: String
    /// The name authenticators show.
    public var name: String
    /// The origins allowed in `clientDataJSON.origin`, compared exactly
    /// (`https://example.org`, `https://login.example.org:8443`; an Android app's
    /// `android:apk-key-hash:…`).
    public var origins: Set<String>
    /// The top-level origins that may embed the pages in a cross-origin iframe. Empty (the
    /// default) refuses every cross-origin call.
    public var topOrigins: Set<String>
    /// Whether the user must be verified (only ``UserVerificationRequirement/required``
    /// refuses a response without UV).
    public var userVerification: UserVerificationRequirement
    /// The credential algorithms accepted at registration, most preferred first.
    public var algorithms: [COSEAlgorithm]
    /// Which attestation statements a registration may carry.
    public var attestationPolicy: AttestationPolicy

    /// Creates a relying party that prefers user verification, accepts EdDSA, ES256 and
    /// RS256, no cross-origin calls, and `none` or packed self-attestation.
    ///
    /// ```swift
    /// WebAuthnRelyingParty(id: "localhost", name: "authd (dev)", origins: ["http://localhost:8080"])
    /// ```
    public init(
        id: String, name: String, origins: Set<String>, topOrigins: Set<String> = [],
        userVerification: UserVerificationRequirement = .preferred, algorithms: [COSEAlgorithm] = COSEAlgorithm.allCases,
        attestationPolicy: AttestationPolicy = .verifiedOnly
    ) {
        self.id = id
        self.name = name
        self.origins = origins
        self.topOrigins = topOrigins
        self.userVerification = userVerification
        self.algorithms = algorithms
        self.attestationPolicy = attestationPolicy
    }

    /// SHA-256 of the RP ID: what the authenticator data must start with.
    ///
    /// ```swift
    /// WebAuthnRelyingParty(id: "example.org", name: "", origins: []).idHash.count   // 32
    /// ```
    public var idHash: Data {
        Data(SHA256.hash(data: Data(id.utf8)))
    }

    /// The shortest challenge accepted (WebAuthn §13.4.3: at least 16 random bytes), so that
    /// a server that lost its challenge (an empty one) cannot accept an empty answer.
    static let minimumChallengeLength = 16

    /// The checks both ceremonies make of the client data (WebAuthn §7.1 steps 7–10, §7.2
    /// steps 10–13): type, challenge (in constant time), origin, cross-origin use.
    func verifyClientData(_ json: Data, type: String, expectedChallenge: Data) throws(WebAuthnError) {
        guard expectedChallenge.count >= Self.minimumChallengeLength else {
            throw .rejected(.challenge, "the expected challenge is shorter than 16 bytes")
        }
        let client = try CollectedClientData(json: json)
        guard client.type == type else { throw .rejected(.type, "clientDataJSON.type is not \(type)") }
        guard ConstantTime.equal(client.challenge, expectedChallenge) else {
            throw .rejected(.challenge, "the challenge is not the one issued")
        }
        guard origins.contains(client.origin) else { throw .rejected(.origin, "the origin is not one of the relying party's") }
        if client.crossOrigin, topOrigins.isEmpty {
            throw .rejected(.topOrigin, "the call came from a cross-origin iframe, which the relying party does not allow")
        }
        if let topOrigin = client.topOrigin, !topOrigins.contains(topOrigin) {
            throw .rejected(.topOrigin, "the top-level origin is not one the relying party allows")
        }
    }

    /// The checks both ceremonies make of the authenticator data (WebAuthn §7.1 steps
    /// 13–17, §7.2 steps 15–18): RP ID hash, UP, UV when required, BS only with BE.
    func verifyFlags(_ data: AuthenticatorData) throws(WebAuthnError) {
        guard ConstantTime.equal(data.rpIDHash, idHash) else {
            throw .rejected(.rpID, "the authenticator data is for another RP ID")
        }
        guard data.flags.contains(.userPresent) else { throw .rejected(.userPresent, "the user-present flag (UP) is not set") }
        if userVerification == .required, !data.flags.contains(.userVerified) {
            throw .rejected(.userVerified, "user verification is required and the user-verified flag (UV) is not set")
        }
        if data.flags.contains(.backupState), !data.flags.contains(.backupEligible) {
            throw .rejected(.backupState, "the backup-state flag (BS) is set without backup eligibility (BE)")
        }
    }
}
