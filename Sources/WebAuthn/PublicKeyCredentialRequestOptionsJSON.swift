import Foundation

/// The options of an authentication, in the JSON form the browser's
/// `PublicKeyCredential.parseRequestOptionsFromJSON()` reads
/// (`PublicKeyCredentialRequestOptionsJSON`, WebAuthn §5.1.9).
/// ``WebAuthnRelyingParty/requestOptions(challenge:allowCredentials:timeout:)`` builds one.
///
/// ```swift
/// let options = relyingParty.requestOptions(challenge: challenge)   // empty allowCredentials: any passkey
/// let json = try JSONEncoder().encode(options)   // {"challenge":"…","timeout":300000,"rpId":"example.org",…}
/// ```
public struct PublicKeyCredentialRequestOptionsJSON: Codable, Sendable, Equatable {
    /// The challenge (at least 16 random bytes; the server keeps it until the response).
    public var challenge: Data
    /// How long the ceremony may take, in milliseconds.
    public var timeout: Int?
    /// The RP ID; the client uses the origin's host when absent.
    public var rpId: String?
    /// The credentials that may answer; empty lets the user pick any discoverable one.
    public var allowCredentials: [PublicKeyCredentialDescriptorJSON]
    /// Whether the user must be verified.
    public var userVerification: UserVerificationRequirement?
    /// UI hints (`security-key`, `client-device`, `hybrid`).
    public var hints: [String]?

    /// Creates the value.
    ///
    /// ```swift
    /// PublicKeyCredentialRequestOptionsJSON(challenge: challenge, rpId: "example.org", userVerification: .required)
    /// ```
    public init(
        challenge: Data, timeout: Int? = nil, rpId: String? = nil, allowCredentials: [PublicKeyCredentialDescriptorJSON] = [],
        userVerification: UserVerificationRequirement? = nil, hints: [String]? = nil
    ) {
        self.challenge = challenge
        self.timeout = timeout
        self.rpId = rpId
        self.allowCredentials = allowCredentials
        self.userVerification = userVerification
        self.hints = hints
    }

    private enum CodingKeys: String, CodingKey {
        case challenge, timeout, rpId, allowCredentials, userVerification, hints
    }

    /// Decodes the JSON form (what a client, or the software authenticator, receives).
    ///
    /// ```swift
    /// let options = try JSONDecoder().decode(PublicKeyCredentialRequestOptionsJSON.self, from: body)
    /// ```
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        challenge = try container.decodeBase64URL(forKey: .challenge)
        timeout = try container.decodeIfPresent(Int.self, forKey: .timeout)
        rpId = try container.decodeTextIfPresent(forKey: .rpId)
        allowCredentials = try container.decodeIfPresent([PublicKeyCredentialDescriptorJSON].self, forKey: .allowCredentials) ?? []
        userVerification = try container.decodeIfPresent(UserVerificationRequirement.self, forKey: .userVerification)
        hints = try container.decodeTextListIfPresent(forKey: .hints)
    }

    /// Encodes the JSON form, `challenge` as base64url.
    ///
    /// ```swift
    /// let body = try JSONEncoder().encode(options)
    /// ```
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeBase64URL(challenge, forKey: .challenge)
        try container.encodeIfPresent(timeout, forKey: .timeout)
        try container.encodeIfPresent(rpId, forKey: .rpId)
        try container.encode(allowCredentials, forKey: .allowCredentials)
        try container.encodeIfPresent(userVerification, forKey: .userVerification)
        try container.encodeIfPresent(hints, forKey: .hints)
    }
}
