/// The body of `POST /users`: `{"username", "password", "email"?}`, non-empty strings.
///
/// ```swift
/// let body = try await JSONRequestBody.decode(SignUpRequest.self, from: request, limit: 64 * 1024)
/// ```
public struct SignUpRequest: RequestBody {
    /// The username wanted.
    public let username: NonEmptyString
    /// The password to set. Never log it.
    public let password: NonEmptyString
    /// The account's email address, optional: where password resets go, verified by the
    /// message it is sent when deliveries are configured.
    public let email: NonEmptyString?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case username, password, email
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        username = try container.decode(NonEmptyString.self, forKey: .username)
        password = try container.decode(NonEmptyString.self, forKey: .password)
        email = try container.decodeUnlessAbsent(NonEmptyString.self, forKey: .email)
    }
}
