/// The body of `POST /password/reset`: `{"username"}` or `{"email"}`, exactly one.
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
}
