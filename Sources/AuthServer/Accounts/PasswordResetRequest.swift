/// The body of `POST /password/reset`: `{"username"}` or `{"email"}`, exactly one; a field
/// sent as `null` is refused, not taken as absent.
///
/// ```swift
/// let body = try await JSONRequestBody.decode(PasswordResetRequest.self, from: request, limit: 64 * 1024)
/// ```
public struct PasswordResetRequest: RequestBody {
    /// The account's username.
    public let username: NonEmptyString?
    /// The account's email address.
    public let email: NonEmptyString?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case username, email
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        username = try container.decodeUnlessAbsent(NonEmptyString.self, forKey: .username)
        email = try container.decodeUnlessAbsent(NonEmptyString.self, forKey: .email)
    }
}
