/// The body of `POST /me/identities`: `{"link_token"}` (confirming the link a
/// `link_required` answer offered), or `{"provider", "id_token", "nonce"?}` (a fresh sign-in
/// with the provider to link).
public struct IdentityLinkRequest: RequestBody {
    /// The `link_token` of a `link_required` answer.
    public let linkToken: NonEmptyString?
    /// The provider, with `idToken`.
    public let provider: NonEmptyString?
    /// A fresh ID token of `provider`.
    public let idToken: NonEmptyString?
    /// Its raw nonce.
    public let nonce: NonEmptyString?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case linkToken = "link_token"
        case provider
        case idToken = "id_token"
        case nonce
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        linkToken = try container.decodeUnlessAbsent(NonEmptyString.self, forKey: .linkToken)
        provider = try container.decodeUnlessAbsent(NonEmptyString.self, forKey: .provider)
        idToken = try container.decodeUnlessAbsent(NonEmptyString.self, forKey: .idToken)
        nonce = try container.decodeUnlessAbsent(NonEmptyString.self, forKey: .nonce)
    }
}
