import Foundation

/// A credential named in `excludeCredentials` or `allowCredentials`
/// (`PublicKeyCredentialDescriptorJSON`, WebAuthn §5.1.8).
///
/// ```swift
/// PublicKeyCredentialDescriptorJSON(id: record.id, transports: record.transports)
/// // {"type":"public-key","id":"3q2-7w","transports":["internal"]}
/// ```
public struct PublicKeyCredentialDescriptorJSON: Codable, Sendable, Equatable {
    /// Always `public-key`.
    public var type: String
    /// The credential ID.
    public var id: Data
    /// How the client may reach the authenticator, as the registration reported.
    public var transports: [String]?

    /// Creates a descriptor; no transports are written when `transports` is empty.
    ///
    /// ```swift
    /// PublicKeyCredentialDescriptorJSON(id: Data([1, 2, 3]))
    /// ```
    public init(type: String = "public-key", id: Data, transports: [String]? = nil) {
        self.type = type
        self.id = id
        self.transports = transports?.isEmpty == true ? nil : transports
    }

    private enum CodingKeys: String, CodingKey {
        case type, id, transports
    }

    /// Decodes the JSON form.
    ///
    /// ```swift
    /// try JSONDecoder().decode(PublicKeyCredentialDescriptorJSON.self, from: Data(#"{"type":"public-key","id":"AQID"}"#.utf8))
    /// ```
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decodeText(forKey: .type)
        id = try container.decodeBase64URL(forKey: .id)
        transports = try container.decodeTextListIfPresent(forKey: .transports)
    }

    /// Encodes the JSON form, `id` as base64url.
    ///
    /// ```swift
    /// try JSONEncoder().encode(PublicKeyCredentialDescriptorJSON(id: Data([1, 2, 3])))   // {"type":"public-key","id":"AQID"}
    /// ```
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encodeBase64URL(id, forKey: .id)
        try container.encodeIfPresent(transports, forKey: .transports)
    }
}
