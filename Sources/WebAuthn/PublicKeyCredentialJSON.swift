import Foundation

/// A `PublicKeyCredential` in the JSON form of its `toJSON()` (WebAuthn §5.1.8, §5.1.9):
/// the members both ceremonies' responses share around the authenticator's `response`.
/// Binary members are base64url (unpadded; padding accepted), members this type does not
/// know are ignored, and `clientExtensionResults` may be missing.
/// ``RegistrationResponseJSON`` and ``AuthenticationResponseJSON`` are its two forms.
///
/// ```swift
/// let response = try WebAuthnJSON.decode(AuthenticationResponseJSON.self, from: body)
/// response.rawId   // the credential ID, to look the credential up by
/// ```
public struct PublicKeyCredentialJSON<Response: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    /// The credential ID as base64url (must match ``rawId``).
    public var id: String
    /// The credential ID.
    public var rawId: Data
    /// Always `public-key`.
    public var type: String
    /// The authenticator's response.
    public var response: Response
    /// `platform` or `cross-platform`, when the client says.
    public var authenticatorAttachment: String?
    /// The client extension outputs (`credProps` is read; others are ignored).
    public var clientExtensionResults: ClientExtensionResultsJSON

    /// Creates the value.
    ///
    /// ```swift
    /// AuthenticationResponseJSON(id: Base64URL.encode(id), rawId: id, response: assertionResponse)
    /// ```
    public init(
        id: String, rawId: Data, type: String = "public-key", response: Response,
        authenticatorAttachment: String? = nil, clientExtensionResults: ClientExtensionResultsJSON = .init()
    ) {
        self.id = id
        self.rawId = rawId
        self.type = type
        self.response = response
        self.authenticatorAttachment = authenticatorAttachment
        self.clientExtensionResults = clientExtensionResults
    }

    private enum CodingKeys: String, CodingKey {
        case id, rawId, type, response, authenticatorAttachment, clientExtensionResults
    }

    /// Decodes the JSON form.
    ///
    /// ```swift
    /// try JSONDecoder().decode(RegistrationResponseJSON.self, from: body)
    /// ```
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeText(forKey: .id)
        rawId = try container.decodeBase64URL(forKey: .rawId)
        type = try container.decodeText(forKey: .type)
        response = try container.decode(Response.self, forKey: .response)
        authenticatorAttachment = try container.decodeTextIfPresent(forKey: .authenticatorAttachment)
        clientExtensionResults = try container.decodeIfPresent(ClientExtensionResultsJSON.self, forKey: .clientExtensionResults) ?? .init()
    }

    /// Encodes the JSON form.
    ///
    /// ```swift
    /// let body = try JSONEncoder().encode(response)
    /// ```
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encodeBase64URL(rawId, forKey: .rawId)
        try container.encode(type, forKey: .type)
        try container.encode(response, forKey: .response)
        try container.encodeIfPresent(authenticatorAttachment, forKey: .authenticatorAttachment)
        try container.encode(clientExtensionResults, forKey: .clientExtensionResults)
    }
}
