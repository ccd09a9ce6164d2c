import Foundation

/// What the server keeps per credential to verify its assertions (WebAuthn §4 "credential
/// record", the parts authentication needs). ``VerifiedCredential/record`` gives the first
/// one; after each assertion store ``VerifiedAssertion/signCount`` and the backup state.
///
/// ```swift
/// let record = WebAuthnCredentialRecord(id: row.credentialID, publicKey: row.publicKey, signCount: row.signCount,
///                                       isBackupEligible: row.backupEligible, userHandle: user.webAuthnHandle)
/// ```
public struct WebAuthnCredentialRecord: Sendable, Equatable {
    /// The credential ID (1…1023 bytes).
    public var id: Data
    /// The COSE_Key bytes of the credential public key.
    public var publicKey: Data
    /// The last signature counter accepted.
    public var signCount: UInt32
    /// Whether the credential was backup eligible (BE) at registration; BE may not change.
    public var isBackupEligible: Bool
    /// The user handle of the account the credential belongs to; when set, an assertion
    /// carrying another user handle is refused.
    public var userHandle: Data?

    /// Creates the value.
    ///
    /// ```swift
    /// WebAuthnCredentialRecord(id: id, publicKey: coseKey, signCount: 0, isBackupEligible: true)
    /// ```
    public init(id: Data, publicKey: Data, signCount: UInt32, isBackupEligible: Bool, userHandle: Data? = nil) {
        self.id = id
        self.publicKey = publicKey
        self.signCount = signCount
        self.isBackupEligible = isBackupEligible
        self.userHandle = userHandle
    }
}
