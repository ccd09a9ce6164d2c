/// The body of `POST /password`: `{"current_password", "new_password"}`, both non-empty.
///
/// ```swift
/// let body = try await JSONRequestBody.decode(PasswordChangeRequest.self, from: request, limit: 64 * 1024)
/// ```
public struct PasswordChangeRequest: RequestBody {
    /// The password the account has now. Never log it.
    public let currentPassword: NonEmptyString
    /// The password it is to have. Never log it.
    public let newPassword: NonEmptyString

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case currentPassword = "current_password"
        case newPassword = "new_password"
    }
}
