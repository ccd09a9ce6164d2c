import Foundation

/// The attestation object of a registration (WebAuthn §6.5.4): the CBOR map
/// `{fmt, attStmt, authData}`, with the authenticator data parsed. Other members are ignored.
///
/// ```swift
/// let object = try AttestationObject(bytes: response.response.attestationObject)
/// object.format                                              // "none"
/// object.authenticatorData.attestedCredentialData?.aaguid    // the authenticator model
/// ```
public struct AttestationObject: Sendable, Equatable {
    /// The attestation statement format identifier (`none`, `packed`, `tpm`, …).
    public let format: String
    /// The attestation statement, a CBOR map whose members depend on ``format``.
    public let statement: CBORValue
    /// The authenticator data.
    public let authenticatorData: AuthenticatorData

    /// Parses an attestation object.
    ///
    /// ```swift
    /// try AttestationObject(bytes: CBOREncoder.encode(.map([
    ///     .init(.text("fmt"), .text("none")), .init(.text("attStmt"), .map([])), .init(.text("authData"), .bytes(authData)),
    /// ])))
    /// ```
    /// - Throws: a malformed ``WebAuthnError`` (field `attestationObject`) when it is not
    ///   such a map, or its authenticator data does not parse.
    public init(bytes: Data) throws(WebAuthnError) {
        let field = "attestationObject"
        let object = try CBORDecoder.decode(bytes, field: field)
        guard object.mapValue != nil else { throw .malformed(field, "is not a CBOR map") }
        guard let format = object["fmt"]?.textValue else { throw .malformed(field, "has no text fmt") }
        guard let statement = object["attStmt"], statement.mapValue != nil else { throw .malformed(field, "has no map attStmt") }
        guard let authData = object["authData"]?.bytesValue else { throw .malformed(field, "has no byte string authData") }
        self.format = format
        self.statement = statement
        authenticatorData = try AuthenticatorData(bytes: authData)
    }
}
