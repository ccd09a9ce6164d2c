/// The body of `POST /login/id-token`: `{"provider", "id_token", "nonce"?}`, an ID token an
/// app got natively from the provider, and the raw nonce whose SHA-256 it asked the token
/// to carry; or `{"provider", "authorization_code", "client_id"?, "nonce"?}`, a code to
/// exchange at the provider (Sign in with Apple's), issued to `client_id` (one of the
/// provider's; the first when absent).
///
/// ```swift
/// let body = try await JSONRequestBody.decode(IDTokenLoginRequest.self, from: request, limit: 64 * 1024)
/// ```
public struct IDTokenLoginRequest: RequestBody {
    /// The provider's name in authd.
    public let provider: NonEmptyString
    /// The provider's ID token (a JWS), or nil with `authorizationCode`.
    public let idToken: NonEmptyString?
    /// An authorization code the provider gave the app.
    public let authorizationCode: NonEmptyString?
    /// The client id the code was issued to.
    public let clientID: NonEmptyString?
    /// The raw nonce.
    public let nonce: NonEmptyString?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case provider
        case idToken = "id_token"
        case authorizationCode = "authorization_code"
        case clientID = "client_id"
        case nonce
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        provider = try container.decode(NonEmptyString.self, forKey: .provider)
        idToken = try container.decodeUnlessAbsent(NonEmptyString.self, forKey: .idToken)
        authorizationCode = try container.decodeUnlessAbsent(NonEmptyString.self, forKey: .authorizationCode)
        clientID = try container.decodeUnlessAbsent(NonEmptyString.self, forKey: .clientID)
        nonce = try container.decodeUnlessAbsent(NonEmptyString.self, forKey: .nonce)
    }
}
