/// The body of `POST /password/reset/confirm`: `{"token", "new_password"}`, both non-empty.
///
/// ```swift
/// let body = try await JSONRequestBody.decode(PasswordResetConfirmation.self, from: request, limit: 64 * 1024)
/// ```
public struct PasswordResetConfirmation: RequestBody {
    /// The token the reset message carried. Never log it.
    public let token: NonEmptyString
    /// The password the account is to have. Never log it.
    public let newPassword: NonEmptyString

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case token
        case newPassword = "new_password"
    }
}
