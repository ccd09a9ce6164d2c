import Foundation

/// The authenticator data (WebAuthn §6.1): the RP ID hash, flags, signature counter, the
/// attested credential data when AT is set, and the extensions when ED is set, parsed with
/// every length checked and nothing allowed after the last part.
///
/// ```swift
/// let data = try AuthenticatorData(bytes: assertion.response.authenticatorData)
/// data.flags.contains(.userVerified)   // true
/// data.signCount                       // 7
/// ```
public struct AuthenticatorData: Sendable, Equatable {
    /// The flags byte (WebAuthn §6.1, "flags").
    ///
    /// ```swift
    /// AuthenticatorData.Flags(rawValue: 0x45) == [.userPresent, .userVerified, .attestedCredentialData]   // true
    /// ```
    public struct Flags: OptionSet, Sendable, Hashable {
        /// The byte.
        public let rawValue: UInt8

        /// Flags from their byte.
        ///
        /// ```swift
        /// AuthenticatorData.Flags(rawValue: 0x01)   // [.userPresent]
        /// ```
        public init(rawValue: UInt8) {
            self.rawValue = rawValue
        }

        /// UP: a user was present (bit 0).
        public static let userPresent = Flags(rawValue: 0x01)
        /// UV: the user was verified, by PIN or biometrics (bit 2).
        public static let userVerified = Flags(rawValue: 0x04)
        /// BE: the credential may be backed up, i.e. is a synced passkey (bit 3).
        public static let backupEligible = Flags(rawValue: 0x08)
        /// BS: the credential is backed up now (bit 4).
        public static let backupState = Flags(rawValue: 0x10)
        /// AT: attested credential data follows (bit 6).
        public static let attestedCredentialData = Flags(rawValue: 0x40)
        /// ED: extension data follows (bit 7).
        public static let extensionData = Flags(rawValue: 0x80)
    }

    /// The bytes parsed, exactly (signatures cover them).
    public let bytes: Data
    /// SHA-256 of the RP ID the authenticator used (32 bytes).
    public let rpIDHash: Data
    /// The flags.
    public let flags: Flags
    /// The signature counter (0 when the authenticator keeps none).
    public let signCount: UInt32
    /// The new credential, present when AT is set (registrations).
    public let attestedCredentialData: AttestedCredentialData?
    /// The authenticator extension outputs, a CBOR map, present when ED is set.
    public let extensions: CBORValue?

    /// Parses authenticator data.
    ///
    /// ```swift
    /// let data = try AuthenticatorData(bytes: rpIDHash + Data([0x05, 0, 0, 0, 1]))
    /// data.signCount   // 1
    /// ```
    /// - Throws: a malformed ``WebAuthnError`` (field `authenticatorData`) when a part is
    ///   short, a CBOR item is bad or bytes are left over; rejected with
    ///   ``WebAuthnError/Check/credentialID`` when the credential ID is longer than 1023 bytes.
    public init(bytes: Data) throws(WebAuthnError) {
        let field = "authenticatorData"
        let all = Array(bytes)
        guard all.count >= 37 else { throw .malformed(field, "is shorter than 37 bytes") }
        self.bytes = bytes
        rpIDHash = Data(all[0..<32])
        flags = Flags(rawValue: all[32])
        signCount = all[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var offset = 37
        if flags.contains(.attestedCredentialData) {
            guard all.count - offset >= 18 else { throw .malformed(field, "attested credential data is shorter than 18 bytes") }
            let aaguid = Array(all[offset..<offset + 16])
            let idLength = Int(all[offset + 16]) << 8 | Int(all[offset + 17])
            offset += 18
            guard idLength <= AttestedCredentialData.maximumCredentialIDLength else {
                throw .rejected(.credentialID, "the credential ID is longer than 1023 bytes")
            }
            guard all.count - offset >= idLength else { throw .malformed(field, "the credential ID is truncated") }
            let credentialID = Data(all[offset..<offset + idLength])
            offset += idLength
            let rest = Data(all[offset...])
            let (_, keyLength) = try CBORDecoder.decodePrefix(rest, field: "credentialPublicKey")
            let publicKey = Data(all[offset..<offset + keyLength])
            offset += keyLength
            attestedCredentialData = AttestedCredentialData(
                aaguid: UUID(
                    uuid: (
                        aaguid[0], aaguid[1], aaguid[2], aaguid[3], aaguid[4], aaguid[5], aaguid[6], aaguid[7],
                        aaguid[8], aaguid[9], aaguid[10], aaguid[11], aaguid[12], aaguid[13], aaguid[14], aaguid[15]
                    )),
                credentialID: credentialID,
                credentialPublicKey: publicKey
            )
        } else {
            attestedCredentialData = nil
        }
        if flags.contains(.extensionData) {
            let (value, length) = try CBORDecoder.decodePrefix(Data(all[offset...]), field: "authenticatorData extensions")
            guard value.mapValue != nil else { throw .malformed(field, "extensions are not a CBOR map") }
            extensions = value
            offset += length
        } else {
            extensions = nil
        }
        guard offset == all.count else {
            throw .malformed(field, "\(all.count - offset) bytes follow the last part the flags announce")
        }
    }
}
