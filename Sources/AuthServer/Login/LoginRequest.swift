/// The body of `POST /login`: `{"username", "password"}`, both non-empty strings.
///
/// ```swift
/// let body = try await JSONRequestBody.decode(LoginRequest.self, from: request, limit: 64 * 1024)
/// ```
public struct LoginRequest: RequestBody {
    /// The username as typed.
    public let username: NonEmptyString
    /// The password as typed. Never log it.
    public let password: NonEmptyString

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case username, password
    }
}
