import Foundation

/// What the browser's `PublicKeyCredential.toJSON()` gives after
/// `navigator.credentials.create()` (WebAuthn §5.1.8, `RegistrationResponseJSON`).
/// ``WebAuthnRelyingParty/verifyRegistration(_:expectedChallenge:)`` checks it.
///
/// ```swift
/// let response = try WebAuthnJSON.decode(RegistrationResponseJSON.self, from: body)
/// let credential = try relyingParty.verifyRegistration(response, expectedChallenge: challenge)
/// ```
public typealias RegistrationResponseJSON = PublicKeyCredentialJSON<AuthenticatorAttestationResponseJSON>

/// The `response` member of a registration (`AuthenticatorAttestationResponseJSON`).
///
/// ```swift
/// registration.response.transports   // ["internal", "hybrid"]
/// ```
public struct AuthenticatorAttestationResponseJSON: Codable, Sendable, Equatable {
    /// The client data, exactly as the client serialized it.
    public var clientDataJSON: Data
    /// The CBOR attestation object {fmt, attStmt, authData}.
    public var attestationObject: Data
    /// How the client can reach the authenticator (`usb`, `nfc`, `ble`, `internal`, `hybrid`, …).
    public var transports: [String]?
    /// A copy of the authenticator data (a convenience of the client; not used).
    public var authenticatorData: Data?
    /// The public key as SubjectPublicKeyInfo DER (a convenience of the client; not used).
    public var publicKey: Data?
    /// The public key's COSE algorithm (a convenience of the client; not used).
    public var publicKeyAlgorithm: Int?

    /// Creates the value.
    ///
    /// ```swift
    /// AuthenticatorAttestationResponseJSON(clientDataJSON: clientData, attestationObject: CBOREncoder.encode(object), transports: ["internal"])
    /// ```
    public init(
        clientDataJSON: Data, attestationObject: Data, transports: [String]? = nil,
        authenticatorData: Data? = nil, publicKey: Data? = nil, publicKeyAlgorithm: Int? = nil
    ) {
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.transports = transports
        self.authenticatorData = authenticatorData
        self.publicKey = publicKey
        self.publicKeyAlgorithm = publicKeyAlgorithm
    }

    private enum CodingKeys: String, CodingKey {
        case clientDataJSON, attestationObject, transports, authenticatorData, publicKey, publicKeyAlgorithm
    }

    /// Decodes the base64url members.
    ///
    /// ```swift
    /// try JSONDecoder().decode(AuthenticatorAttestationResponseJSON.self, from: json)
    /// ```
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        clientDataJSON = try container.decodeBase64URL(forKey: .clientDataJSON)
        attestationObject = try container.decodeBase64URL(forKey: .attestationObject)
        transports = try container.decodeTextListIfPresent(forKey: .transports)
        authenticatorData = try container.decodeBase64URLIfPresent(forKey: .authenticatorData)
        publicKey = try container.decodeBase64URLIfPresent(forKey: .publicKey)
        publicKeyAlgorithm = try container.decodeIfPresent(Int.self, forKey: .publicKeyAlgorithm)
    }

    /// Encodes the binary members as base64url.
    ///
    /// ```swift
    /// try JSONEncoder().encode(registration.response)
    /// ```
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeBase64URL(clientDataJSON, forKey: .clientDataJSON)
        try container.encodeBase64URL(attestationObject, forKey: .attestationObject)
        try container.encodeIfPresent(transports, forKey: .transports)
        try container.encodeBase64URLIfPresent(authenticatorData, forKey: .authenticatorData)
        try container.encodeBase64URLIfPresent(publicKey, forKey: .publicKey)
        try container.encodeIfPresent(publicKeyAlgorithm, forKey: .publicKeyAlgorithm)
    }
}
