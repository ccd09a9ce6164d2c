import Foundation

/// What the browser's `PublicKeyCredential.toJSON()` gives after `navigator.credentials.get()`
/// (WebAuthn §5.1.9, `AuthenticationResponseJSON`).
/// ``WebAuthnRelyingParty/verifyAuthentication(_:expectedChallenge:credential:)`` checks it.
///
/// ```swift
/// let response = try WebAuthnJSON.decode(AuthenticationResponseJSON.self, from: body)
/// let record = try await credentials.find(id: response.rawId)
/// ```
public typealias AuthenticationResponseJSON = PublicKeyCredentialJSON<AuthenticatorAssertionResponseJSON>

/// The `response` member of an authentication (`AuthenticatorAssertionResponseJSON`).
///
/// ```swift
/// assertion.response.userHandle   // the account's user handle, for a discoverable credential
/// ```
public struct AuthenticatorAssertionResponseJSON: Codable, Sendable, Equatable {
    /// The client data, exactly as the client serialized it.
    public var clientDataJSON: Data
    /// The authenticator data.
    public var authenticatorData: Data
    /// The signature over `authenticatorData ‖ SHA-256(clientDataJSON)`.
    public var signature: Data
    /// The user handle the credential was created with (discoverable credentials); nil
    /// when absent, null or empty.
    public var userHandle: Data?

    /// Creates the value.
    ///
    /// ```swift
    /// AuthenticatorAssertionResponseJSON(clientDataJSON: clientData, authenticatorData: authData, signature: signature, userHandle: handle)
    /// ```
    public init(clientDataJSON: Data, authenticatorData: Data, signature: Data, userHandle: Data? = nil) {
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }

    private enum CodingKeys: String, CodingKey {
        case clientDataJSON, authenticatorData, signature, userHandle
    }

    /// Decodes the base64url members.
    ///
    /// ```swift
    /// try JSONDecoder().decode(AuthenticatorAssertionResponseJSON.self, from: json)
    /// ```
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        clientDataJSON = try container.decodeBase64URL(forKey: .clientDataJSON)
        authenticatorData = try container.decodeBase64URL(forKey: .authenticatorData)
        signature = try container.decodeBase64URL(forKey: .signature)
        let handle = try container.decodeBase64URLIfPresent(forKey: .userHandle)
        userHandle = handle?.isEmpty == true ? nil : handle
    }

    /// Encodes the binary members as base64url.
    ///
    /// ```swift
    /// try JSONEncoder().encode(assertion.response)
    /// ```
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeBase64URL(clientDataJSON, forKey: .clientDataJSON)
        try container.encodeBase64URL(authenticatorData, forKey: .authenticatorData)
        try container.encodeBase64URL(signature, forKey: .signature)
        try container.encodeBase64URLIfPresent(userHandle, forKey: .userHandle)
    }
}
