import Foundation
import WebAuthn

/// A passkey (a WebAuthn credential) of an account, as stored: its id, public key and what
/// its authenticator said. Nothing in it is secret.
///
/// ```swift
/// let passkeys = try await storage.passkeys.passkeys(ofUser: user.id)
/// passkeys.first?.name   // "passkey"
/// ```
public struct Passkey: Sendable, Equatable {
    /// The credential id (at most 1,023 bytes; unique across accounts).
    public var id: Data
    /// The account.
    public var userID: UUID
    /// The COSE_Key bytes of the credential's public key.
    public var publicKey: Data
    /// Its COSE algorithm (-7 ES256, -8 EdDSA, -257 RS256).
    public var algorithm: Int
    /// The authenticator's signature counter at the last use (0 for authenticators without one).
    public var signCount: UInt32
    /// Whether the credential may be synced to other devices (BE).
    public var backupEligible: Bool
    /// Whether it is synced (BS), as of the last use.
    public var backedUp: Bool
    /// How the client can reach the authenticator (`internal`, `hybrid`, `usb`, …).
    public var transports: [String]
    /// The authenticator's model, when it says (zeros when it does not).
    public var aaguid: UUID
    /// The attestation statement's format (`none`, `packed`).
    public var attestationFormat: String
    /// What the owner called it.
    public var name: String
    /// When it was registered.
    public var createdAt: Date
    /// When it last signed a login.
    public var lastUsedAt: Date?

    /// Creates the value.
    public init(
        id: Data, userID: UUID, publicKey: Data, algorithm: Int, signCount: UInt32, backupEligible: Bool, backedUp: Bool,
        transports: [String], aaguid: UUID, attestationFormat: String, name: String, createdAt: Date, lastUsedAt: Date? = nil
    ) {
        self.id = id
        self.userID = userID
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.transports = transports
        self.aaguid = aaguid
        self.attestationFormat = attestationFormat
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

extension Passkey {
    /// How options name it to a client: its id, and its transports when any are known.
    public var descriptor: PublicKeyCredentialDescriptorJSON {
        PublicKeyCredentialDescriptorJSON(id: id, transports: transports.isEmpty ? nil : transports)
    }
}
