import Foundation

/// A registration that passed every check: the credential to store for the account (the
/// server must still refuse an ID that is already registered, WebAuthn §7.1 step 26).
///
/// ```swift
/// let credential = try relyingParty.verifyRegistration(response, expectedChallenge: challenge)
/// try await store(userID: user.id, credential)   // id, publicKey, signCount, transports, flags…
/// ```
public struct VerifiedCredential: Sendable, Equatable {
    /// The credential ID (1…1023 bytes).
    public let id: Data
    /// The credential public key: COSE_Key bytes, as the authenticator sent them.
    public let publicKey: Data
    /// The key's algorithm.
    public let algorithm: COSEAlgorithm
    /// The signature counter at registration.
    public let signCount: UInt32
    /// The transports the client reported that WebAuthn defines (`ble`, `hybrid`,
    /// `internal`, `nfc`, `smart-card`, `usb`), once each, in the client's order.
    public let transports: [String]
    /// The authenticator model (all zeros when the client hid it).
    public let aaguid: UUID
    /// BE: the credential may be synced (a multi-device passkey).
    public let isBackupEligible: Bool
    /// BS: the credential is backed up now.
    public let isBackedUp: Bool
    /// UV: the user was verified during the registration.
    public let isUserVerified: Bool
    /// Whether the client says the credential is discoverable (`credProps.rk`); nil when it
    /// did not say.
    public let isDiscoverable: Bool?
    /// The attestation statement format (`none`, `packed`, …).
    public let attestationFormat: String
    /// What the attestation established.
    public let attestationType: AttestationType

    /// The transports WebAuthn defines (§5.8.4).
    static let knownTransports: Set<String> = ["ble", "hybrid", "internal", "nfc", "smart-card", "usb"]

    /// Creates the value.
    ///
    /// ```swift
    /// VerifiedCredential(id: id, publicKey: key, algorithm: .es256, signCount: 0, transports: ["usb"], aaguid: UUID(),
    ///                    isBackupEligible: false, isBackedUp: false, isUserVerified: true, isDiscoverable: nil,
    ///                    attestationFormat: "none", attestationType: .none)
    /// ```
    public init(
        id: Data, publicKey: Data, algorithm: COSEAlgorithm, signCount: UInt32, transports: [String], aaguid: UUID,
        isBackupEligible: Bool, isBackedUp: Bool, isUserVerified: Bool, isDiscoverable: Bool?,
        attestationFormat: String, attestationType: AttestationType
    ) {
        self.id = id
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.transports = transports
        self.aaguid = aaguid
        self.isBackupEligible = isBackupEligible
        self.isBackedUp = isBackedUp
        self.isUserVerified = isUserVerified
        self.isDiscoverable = isDiscoverable
        self.attestationFormat = attestationFormat
        self.attestationType = attestationType
    }

    /// The record that verifies the credential's first assertion.
    ///
    /// ```swift
    /// let assertion = try relyingParty.verifyAuthentication(response, expectedChallenge: c, credential: credential.record(userHandle: handle))
    /// ```
    public func record(userHandle: Data? = nil) -> WebAuthnCredentialRecord {
        WebAuthnCredentialRecord(
            id: id, publicKey: publicKey, signCount: signCount, isBackupEligible: isBackupEligible, userHandle: userHandle)
    }

    /// `transports` without unknown or repeated values, in order.
    static func sanitizedTransports(_ transports: [String]?) -> [String] {
        var seen = Set<String>()
        return (transports ?? []).filter { knownTransports.contains($0) && seen.insert($0).inserted }
    }
}
